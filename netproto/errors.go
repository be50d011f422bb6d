package netproto

import "fmt"

// JSON-RPC error codes of MCP-NET section 7.1.
const (
	CodeTimeout                = -32081
	CodeUnreachable            = -32082
	CodeAccessDenied           = -32083
	CodeConfigIncompatible     = -32084
	CodeRollbackFailed         = -32085
	CodeConfirmedCommitTimeout = -32086
	CodeRollbackNotSupported   = -32087
	CodeYangSyntaxError        = -32088
	CodeHardwareFailure        = -32089
	CodeSnmpFailure            = -32090
)

var codeNames = map[int]string{
	CodeTimeout:                "Network.Timeout",
	CodeUnreachable:            "Network.Unreachable",
	CodeAccessDenied:           "Network.AccessDenied",
	CodeConfigIncompatible:     "Network.ConfigIncompatible",
	CodeRollbackFailed:         "Network.RollbackFailed",
	CodeConfirmedCommitTimeout: "Network.ConfirmedCommitTimeout",
	CodeRollbackNotSupported:   "Network.RollbackNotSupported",
	CodeYangSyntaxError:        "Network.YangSyntaxError",
	CodeHardwareFailure:        "Network.HardwareFailure",
	CodeSnmpFailure:            "Network.SnmpFailure",
}

// CodeName returns the draft's message for a code ("Network.Timeout"), or "" if
// the code is not one of the draft's.
func CodeName(code int) string { return codeNames[code] }

// ErrorData is the "data" member of an MCP-NET error (section 7.2).
type ErrorData struct {
	Detail        string `json:"detail"`
	Path          string `json:"path,omitempty"`
	RetryPossible bool   `json:"retryPossible"`
}

// Error is an MCP-NET error: one of the draft's codes with its data.
// Drivers and packages below the MCP layer return it; the MCP layer turns it
// into a JSON-RPC error whose message is the draft's name for the code.
type Error struct {
	Code int
	ErrorData
}

// Error implements the error interface.
func (e *Error) Error() string {
	msg := CodeName(e.Code)
	if msg == "" {
		msg = fmt.Sprintf("error %d", e.Code)
	}
	if e.Path != "" {
		return fmt.Sprintf("%s: %s (path %s)", msg, e.Detail, e.Path)
	}
	return msg + ": " + e.Detail
}

// Message returns the draft's name for the code, used as the JSON-RPC message.
func (e *Error) Message() string {
	if m := CodeName(e.Code); m != "" {
		return m
	}
	return e.Detail
}

// Errorf returns an *Error with the given code and a formatted detail.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, ErrorData: ErrorData{Detail: fmt.Sprintf(format, args...)}}
}

// WithPath returns e with its YANG path set.
func (e *Error) WithPath(path string) *Error { e.Path = path; return e }

// Retryable returns e marked as worth retrying.
func (e *Error) Retryable() *Error { e.RetryPossible = true; return e }
