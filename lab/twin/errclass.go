//go:build linux

package twin

import "strings"

// errorClass classes a BGP session's last error as the fact shows it: "-"
// while the session is Established (an old error is history then),
// otherwise one of "none", "hold-timer-expired", "bad-peer-as",
// "open-message-error", "cease", "no-route", or "text:" and the error's
// own words when it fits none. The simulator's LastError and FRR's
// lastNotificationReason / lastResetDueTo use FRR's words.
func errorClass(state, lastError string) string {
	if state == "Established" {
		return "-"
	}
	e := strings.ToLower(strings.TrimSpace(lastError))
	switch {
	case e == "":
		return "none"
	case strings.Contains(e, "hold timer"):
		return "hold-timer-expired"
	case strings.Contains(e, "bad peer as"):
		return "bad-peer-as"
	case strings.Contains(e, "open message error"):
		return "open-message-error"
	case strings.Contains(e, "cease"):
		return "cease"
	case strings.Contains(e, "nht"), strings.Contains(e, "no route"):
		return "no-route"
	}
	return "text:" + e
}
