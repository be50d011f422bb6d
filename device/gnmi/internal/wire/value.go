package wire

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/netmcp/netmcp/netproto"
)

// maxExact is the largest integer a float64 holds exactly (2^53).
const maxExact = 1 << 53

// Decode turns a gNMI value into a generic JSON value (map[string]any,
// []any, string, float64, bool or nil). JSON values are decoded as they
// are; an integer too large for a float64 becomes its decimal string, as
// RFC 7951 writes 64-bit integers.
func Decode(v *gpb.TypedValue) (any, error) {
	switch x := v.GetValue().(type) {
	case nil:
		return nil, nil
	case *gpb.TypedValue_JsonIetfVal:
		return decodeJSON(x.JsonIetfVal)
	case *gpb.TypedValue_JsonVal:
		return decodeJSON(x.JsonVal)
	case *gpb.TypedValue_StringVal:
		return x.StringVal, nil
	case *gpb.TypedValue_AsciiVal:
		return x.AsciiVal, nil
	case *gpb.TypedValue_BoolVal:
		return x.BoolVal, nil
	case *gpb.TypedValue_IntVal:
		if x.IntVal > maxExact || x.IntVal < -maxExact {
			return strconv.FormatInt(x.IntVal, 10), nil
		}
		return float64(x.IntVal), nil
	case *gpb.TypedValue_UintVal:
		if x.UintVal > maxExact {
			return strconv.FormatUint(x.UintVal, 10), nil
		}
		return float64(x.UintVal), nil
	case *gpb.TypedValue_DoubleVal:
		return x.DoubleVal, nil
	case *gpb.TypedValue_FloatVal:
		//lint:ignore SA1019 older targets still send the deprecated float_val
		return float64(x.FloatVal), nil
	case *gpb.TypedValue_DecimalVal:
		//lint:ignore SA1019 older targets still send the deprecated decimal_val
		d := x.DecimalVal
		return strconv.FormatFloat(float64(d.GetDigits())/math.Pow10(int(d.GetPrecision())), 'f', int(d.GetPrecision()), 64), nil
	case *gpb.TypedValue_BytesVal:
		return string(x.BytesVal), nil
	case *gpb.TypedValue_LeaflistVal:
		out := make([]any, 0, len(x.LeaflistVal.GetElement()))
		for _, e := range x.LeaflistVal.GetElement() {
			d, err := Decode(e)
			if err != nil {
				return nil, err
			}
			out = append(out, d)
		}
		return out, nil
	}
	return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "unsupported gNMI value type %T", v.GetValue())
}

func decodeJSON(b []byte) (any, error) {
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, netproto.Errorf(netproto.CodeYangSyntaxError, "value is not JSON: %v", err)
	}
	return out, nil
}

// EncodeJSON returns v as a JSON_IETF value (ietf) or a JSON value.
func EncodeJSON(v any, ietf bool) (*gpb.TypedValue, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("value does not encode as JSON: %w", err)
	}
	if ietf {
		return &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: b}}, nil
	}
	return &gpb.TypedValue{Value: &gpb.TypedValue_JsonVal{JsonVal: b}}, nil
}

// EncodeScalar returns a leaf's value as a typed scalar (PROTO encoding):
// strings, booleans, integers (uint for non-negative ones), doubles and
// leaf-lists of those; anything else (an empty leaf's [null]) as JSON_IETF.
func EncodeScalar(v any) *gpb.TypedValue {
	switch x := v.(type) {
	case string:
		return &gpb.TypedValue{Value: &gpb.TypedValue_StringVal{StringVal: x}}
	case bool:
		return &gpb.TypedValue{Value: &gpb.TypedValue_BoolVal{BoolVal: x}}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= maxExact {
			if x >= 0 {
				return &gpb.TypedValue{Value: &gpb.TypedValue_UintVal{UintVal: uint64(x)}}
			}
			return &gpb.TypedValue{Value: &gpb.TypedValue_IntVal{IntVal: int64(x)}}
		}
		return &gpb.TypedValue{Value: &gpb.TypedValue_DoubleVal{DoubleVal: x}}
	case []any:
		arr := &gpb.ScalarArray{}
		for _, e := range x {
			switch e.(type) {
			case map[string]any, []any, nil:
				tv, _ := EncodeJSON(v, true)
				return tv
			}
			arr.Element = append(arr.Element, EncodeScalar(e))
		}
		return &gpb.TypedValue{Value: &gpb.TypedValue_LeaflistVal{LeaflistVal: arr}}
	}
	tv, err := EncodeJSON(v, true)
	if err != nil {
		return &gpb.TypedValue{Value: &gpb.TypedValue_StringVal{StringVal: fmt.Sprint(v)}}
	}
	return tv
}

// Unqualify returns v with the members at its top that are qualified with
// module ("openconfig-interfaces:interface" under a node of
// openconfig-interfaces) written bare, as RFC 7951 writes them below a
// node of the same module. Some targets qualify every member at the top
// of a value; netmcp's trees do not.
func Unqualify(v any, module string) any {
	m, ok := v.(map[string]any)
	if !ok || module == "" {
		return v
	}
	prefix := module + ":"
	var out map[string]any
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			out = make(map[string]any, len(m))
			break
		}
	}
	if out == nil {
		return v
	}
	for k, x := range m {
		out[strings.TrimPrefix(k, prefix)] = x
	}
	return out
}
