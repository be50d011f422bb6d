package diag

import (
	"os"
	"path/filepath"
	"testing"
)

// benchParser measures parse throughput over all fixtures of a parser.
func benchParser[T any](b *testing.B, parser string, parse func(string) (T, error)) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, parser, "*", "*.out"))
	if len(files) == 0 {
		b.Skip("corpus missing")
	}
	var inputs []string
	total := 0
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, string(data))
		total += len(data)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, in := range inputs {
			_, _ = parse(in)
		}
	}
}

func BenchmarkParsePing(b *testing.B)       { benchParser(b, "ping", ParsePing) }
func BenchmarkParseTraceroute(b *testing.B) { benchParser(b, "traceroute", ParseTraceroute) }
func BenchmarkParseTracepath(b *testing.B)  { benchParser(b, "tracepath", ParseTracepath) }
func BenchmarkParseDig(b *testing.B)        { benchParser(b, "dig", ParseDig) }
