package netproto_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
)

// mcp20260728Codes are the JSON-RPC error codes MCP 2026-07-28 defines,
// with their meaning: JSON-RPC's own, those of the SDK's mcp package
// (SEP-2575's -32020..-32022, URL elicitation's -32042) and resource not
// found (-32002, which 2026-07-28 clients still accept).
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
	//lint:ignore SA1019 resource not found (-32002) is still an MCP code, which netmcp's codes must not collide with
	mcp.CodeResourceNotFound: "resource not found",
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
