package diag

import "strings"

// jcErrorTypes is jc's table of ICMP error messages, in jc's order (first
// match wins, so "Destination Host Unreachable for Type of Service" is
// reported as destination_host_unreachable, as jc does).
var jcErrorTypes = []struct{ text, code string }{
	{"Destination Net Unreachable", "destination_net_unreachable"},
	{"Destination Host Unreachable", "destination_host_unreachable"},
	{"Destination Protocol Unreachable", "destination_protocol_unreachable"},
	{"Destination Port Unreachable", "destination_port_unreachable"},
	{"Frag needed and DF set", "frag_needed_and_df_set"},
	{"Source Route Failed", "source_route_failed"},
	{"Destination Net Unknown", "destination_net_unknown"},
	{"Destination Host Unknown", "destination_host_unknown"},
	{"Source Host Isolated", "source_host_isolated"},
	{"Destination Net Prohibited", "destination_net_prohibited"},
	{"Destination Host Prohibited", "destination_host_prohibited"},
	{"Destination Net Unreachable for Type of Service", "destination_net_unreachable_for_type_of_service"},
	{"Destination Host Unreachable for Type of Service", "destination_host_unreachable_for_type_of_service"},
	{"Packet filtered", "packet_filtered"},
	{"Precedence Violation", "precedence_violation"},
	{"Precedence Cutoff", "precedence_cutoff"},
	{"Dest Unreachable, Bad Code", "dest_unreachable_bad_code"},
	{"Redirect Network", "redirect_network"},
	{"Redirect Host", "redirect_host"},
	{"Redirect Type of Service and Network", "redirect_type_of_service_and_network"},
	{"Redirect, Bad Code", "redirect_bad_code"},
	{"Time to live exceeded", "time_to_live_exceeded"},
	{"Frag reassembly time exceeded", "frag_reassembly_time_exceeded"},
	{"Time exceeded, Bad Code", "time_exceeded_bad_code"},
}

// moreErrorTypes extends jc's table for the extra icmp_errors field with
// the other messages of iputils (IPv6 included) and BSD.
var moreErrorTypes = []struct{ text, code string }{
	{"Destination Network Unreachable", "destination_net_unreachable"},
	{"Destination unreachable: No route", "destination_no_route"},
	{"Destination unreachable: Administratively prohibited", "destination_administratively_prohibited"},
	{"Destination unreachable: Beyond scope of source address", "destination_beyond_scope"},
	{"Destination unreachable: Address unreachable", "destination_address_unreachable"},
	{"Destination unreachable: Port unreachable", "destination_port_unreachable"},
	{"Destination unreachable: Source address failed ingress/egress policy", "destination_source_address_failed_policy"},
	{"Destination unreachable: Reject route to destination", "destination_reject_route"},
	{"Packet too big", "packet_too_big"},
	{"Time exceeded: Hop limit", "time_to_live_exceeded"},
	{"Time exceeded: Defragmentation failure", "frag_reassembly_time_exceeded"},
	{"Parameter problem", "parameter_problem"},
	{"Redirect", "redirect"},
	{"Source Quench", "source_quench"},
}

// jcErrorType returns jc's code for an error line, or "".
func jcErrorType(line string) string {
	for _, e := range jcErrorTypes {
		if strings.Contains(line, e.text) {
			return e.code
		}
	}
	return ""
}

// anyErrorType returns a code for any known ICMP error message, or "".
func anyErrorType(line string) string {
	if c := jcErrorType(line); c != "" {
		return c
	}
	for _, e := range moreErrorTypes {
		if strings.Contains(line, e.text) {
			return e.code
		}
	}
	return ""
}
