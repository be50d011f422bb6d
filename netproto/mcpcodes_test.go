package netproto_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
)

// mcp20260728Codes are the JSON-RPC error codes MCP 2026-07-28 defines
// or keeps reserved, with their meaning, as its schema lists them:
// JSON-RPC's own, SEP-2575's -32020..-32022 (the SDK's constants), and the
// codes of earlier versions that are never reused: resource not found
// (-32002, 2025-11-25 and earlier; now -32602, as the SDK's
// CodeResourceNotFound is) and URL elicitation required (-32042).
var mcp20260728Codes = map[int64]string{
	jsonrpc.CodeParseError:                    "parse error",
	jsonrpc.CodeInvalidRequest:                "invalid request",
	jsonrpc.CodeMethodNotFound:                "method not found",
	jsonrpc.CodeInvalidParams:                 "invalid params",
	jsonrpc.CodeInternalError:                 "internal error",
	mcp.CodeHeaderMismatch:                    "header mismatch",
	mcp.CodeMissingRequiredClientCapabilities: "missing required client capabilities",
	mcp.CodeUnsupportedProtocolVersion:        "unsupported protocol version",
	mcp.CodeURLElicitationRequired:            "URL elicitation required",
	-32002:                                    "resource not found (up to 2025-11-25)",
}

// TestMCPCodeList: the list above holds ten distinct codes (a constant of
// the SDK that moved onto another code would silently shrink it).
func TestMCPCodeList(t *testing.T) {
	if len(mcp20260728Codes) != 10 || mcp.CodeURLElicitationRequired != -32042 {
		t.Fatalf("MCP codes %v: want ten, -32042 among them", mcp20260728Codes)
	}
}

// mcpReserved is the range MCP 2026-07-28 reserves for its own codes.
const mcpReservedLow, mcpReservedHigh = -32099, -32020

// draftCodes are the codes of MCP-NET section 7.1.
var draftCodes = []int{
	netproto.CodeTimeout, netproto.CodeUnreachable, netproto.CodeAccessDenied,
	netproto.CodeConfigIncompatible, netproto.CodeRollbackFailed, netproto.CodeConfirmedCommitTimeout,
	netproto.CodeRollbackNotSupported, netproto.CodeYangSyntaxError, netproto.CodeHardwareFailure,
	netproto.CodeSnmpFailure,
}

// TestDraftCodesDoNotCollideWithMCP: the draft's codes lie in the range
// MCP 2026-07-28 reserves (docs/mcp-mapping.md says so), but none is a
// code MCP defines.
func TestDraftCodesDoNotCollideWithMCP(t *testing.T) {
	for _, c := range draftCodes {
		if netproto.CodeName(c) == "" {
			t.Errorf("%d: not a draft code", c)
		}
		if c < mcpReservedLow || c > mcpReservedHigh {
			t.Errorf("%d is outside MCP's reserved range: docs/mcp-mapping.md says they all fall inside", c)
		}
		if m, ok := mcp20260728Codes[int64(c)]; ok {
			t.Errorf("draft code %d (%s) is MCP 2026-07-28's %q", c, netproto.CodeName(c), m)
		}
	}
}

// TestNoSentCodeCollidesWithMCP reads every non-test Go file of the
// module for the error codes netmcp writes: integer literals from -32768
// to -32000, the draft's constants and the SDK's code constants. Each must
// be a draft code, a code MCP 2026-07-28 defines used by its constant
// (with MCP's meaning), or one MCP does not define: a literal equal to a
// code MCP defines would give the client MCP's meaning for something else.
func TestNoSentCodeCollidesWithMCP(t *testing.T) {
	sdkConsts := map[string]int64{
		"jsonrpc.CodeParseError": jsonrpc.CodeParseError, "jsonrpc.CodeInvalidRequest": jsonrpc.CodeInvalidRequest,
		"jsonrpc.CodeMethodNotFound": jsonrpc.CodeMethodNotFound, "jsonrpc.CodeInvalidParams": jsonrpc.CodeInvalidParams,
		//lint:ignore SA1019 resource not found (-32002) is still an MCP code, which netmcp's codes must not collide with
		"jsonrpc.CodeInternalError": jsonrpc.CodeInternalError, "mcp.CodeResourceNotFound": mcp.CodeResourceNotFound,
		//lint:ignore SA1019 resource not found (-32002) is still an MCP code, which netmcp's codes must not collide with
		"mcp.ResourceNotFoundError": mcp.CodeResourceNotFound, "mcp.CodeHeaderMismatch": mcp.CodeHeaderMismatch,
		"mcp.CodeMissingRequiredClientCapabilities": mcp.CodeMissingRequiredClientCapabilities,
		"mcp.CodeUnsupportedProtocolVersion":        mcp.CodeUnsupportedProtocolVersion,
		"mcp.CodeURLElicitationRequired":            mcp.CodeURLElicitationRequired,
	}
	draft := map[int64]bool{}
	for _, c := range draftCodes {
		draft[int64(c)] = true
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, path)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.UnaryExpr:
				lit, ok := n.X.(*ast.BasicLit)
				if n.Op != token.SUB || !ok || lit.Kind != token.INT {
					return true
				}
				v, err := strconv.ParseInt(lit.Value, 0, 64)
				if err != nil || v < 32000 || v > 32768 {
					return true
				}
				code := -v
				if m, ok := mcp20260728Codes[code]; ok && !draft[code] {
					t.Errorf("%s:%d: literal %d is MCP 2026-07-28's %q: use the SDK's constant if that is meant, else another code",
						rel, fset.Position(n.Pos()).Line, code, m)
				}
				return false
			case *ast.SelectorExpr:
				x, ok := n.X.(*ast.Ident)
				if !ok || (x.Name != "mcp" && x.Name != "jsonrpc") || !strings.HasPrefix(n.Sel.Name, "Code") {
					return true
				}
				if _, known := sdkConsts[x.Name+"."+n.Sel.Name]; !known {
					t.Errorf("%s:%d: %s.%s is not among the codes this test knows: add it with its MCP meaning",
						rel, fset.Position(n.Pos()).Line, x.Name, n.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files under %s: not the module", files, root)
	}
}

// sdkCodePattern finds the error codes of the official TypeScript SDK's
// built client: its ProtocolErrorCode enum and the header mismatch code.
var sdkCodePattern = regexp.MustCompile(`ProtocolErrorCode\$1\["(\w+)"\] = (-\d+)\]|HEADER_MISMATCH_ERROR_CODE = (-\d+);`)

// TestMCPCodesMatchOfficialSDK: every error code the official TypeScript
// SDK 2 (which scripts/install-deps.sh installs in .tools/) defines for
// MCP is in this test's list of MCP 2026-07-28's codes, so that the
// collision checks above miss none. Skipped when the SDK is absent, failed
// under CI, which installs it.
func TestMCPCodesMatchOfficialSDK(t *testing.T) {
	dist := filepath.Join("..", ".tools", "mcp", "node_modules", "@modelcontextprotocol", "client", "dist")
	files, _ := filepath.Glob(filepath.Join(dist, "*.mjs"))
	if len(files) == 0 {
		msg := "@modelcontextprotocol/client is not installed in " + dist + "; run scripts/install-deps.sh"
		if v := strings.ToLower(os.Getenv("CI")); v != "" && v != "false" && v != "0" {
			t.Fatal(msg + " (CI is set: this check must run)")
		}
		t.Skip(msg)
	}
	found := map[int64]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range sdkCodePattern.FindAllStringSubmatch(string(b), -1) {
			name, num := m[1], m[2]
			if num == "" {
				name, num = "HeaderMismatch", m[3]
			}
			code, err := strconv.ParseInt(num, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			found[code] = name
		}
	}
	if len(found) < 8 {
		t.Fatalf("found %d codes in %s: %v; the SDK's build changed, update the pattern", len(found), dist, found)
	}
	for code, name := range found {
		if _, ok := mcp20260728Codes[code]; !ok {
			t.Errorf("the official SDK defines %d (%s), which this test's list of MCP codes lacks", code, name)
		}
	}
}
