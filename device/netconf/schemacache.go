package netconf

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/netmcp/netmcp/internal/atomicfile"
)

// schemaDirName is the folder of the state directory that keeps the YANG
// sources fetched from devices, one file per device and module set.
const schemaDirName = "netconf-schemas"

// schemaSources are the YANG texts of one device's modules, by module
// name, as kept on disk between runs: a restarted server compiles them
// again without a single <get-schema>, so the device sees its modules
// fetched once, not at every start.
type schemaSources struct {
	// Key is schemaKey's value: the device's address and every module
	// with its revision and features. A changed module set is a new file.
	Key     string            `json:"key"`
	Modules map[string]string `json:"modules"`
}

// schemaFile is where the sources for key are kept under stateDir.
func schemaFile(stateDir, key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(stateDir, schemaDirName, hex.EncodeToString(sum[:16])+".json")
}

// readSchemaSources returns the sources kept for key, or an empty set
// when none are (or stateDir is empty). A file that does not parse or
// belongs to another key is ignored: the modules are fetched again.
func readSchemaSources(stateDir, key string) (*schemaSources, error) {
	src := &schemaSources{Key: key, Modules: map[string]string{}}
	if stateDir == "" {
		return src, nil
	}
	b, err := os.ReadFile(schemaFile(stateDir, key))
	if errors.Is(err, fs.ErrNotExist) {
		return src, nil
	}
	if err != nil {
		return src, err
	}
	var kept schemaSources
	if json.Unmarshal(b, &kept) != nil || kept.Key != key || kept.Modules == nil {
		return src, nil
	}
	return &kept, nil
}

// writeSchemaSources keeps src under stateDir, atomically.
func writeSchemaSources(stateDir string, src *schemaSources) error {
	if stateDir == "" {
		return nil
	}
	path := schemaFile(stateDir, src.Key)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(src)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b, 0o600)
}
