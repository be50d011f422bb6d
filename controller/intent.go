package controller

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Intent kinds.
const (
	KindReachability = "reachability" // can Source reach Destination
	KindPathMTU      = "path-mtu"     // the MTU of the path from Source to Destination
	KindBGPDown      = "bgp-down"     // why is BGP neighbour Peer down on Device
	KindOSPFDown     = "ospf-down"    // why is the OSPF adjacency between Device and Peer down
	KindSweep        = "sweep"        // what is wrong with the network
)

// Intent is what the operator asks, parsed or given structured.
type Intent struct {
	Kind string `json:"kind" yaml:"kind"`
	// Source and Destination are devices, hosts or addresses
	// (reachability, path-mtu).
	Source      string `json:"source,omitempty" yaml:"source,omitempty"`
	Destination string `json:"destination,omitempty" yaml:"destination,omitempty"`
	// Via is a device the path should cross (reachability).
	Via string `json:"via,omitempty" yaml:"via,omitempty"`
	// Device and Peer: the BGP speaker and its neighbour's address, or the
	// two OSPF routers.
	Device string `json:"device,omitempty" yaml:"device,omitempty"`
	Peer   string `json:"peer,omitempty" yaml:"peer,omitempty"`
	// Text is the sentence the intent was parsed from.
	Text string `json:"text,omitempty" yaml:"text,omitempty"`
}

// String is the intent in words.
func (i Intent) String() string {
	switch i.Kind {
	case KindReachability:
		s := fmt.Sprintf("reachability from %s to %s", i.Source, i.Destination)
		if i.Via != "" {
			s += " via " + i.Via
		}
		return s
	case KindPathMTU:
		return fmt.Sprintf("path MTU from %s to %s", i.Source, i.Destination)
	case KindBGPDown:
		if i.Device == "" {
			return fmt.Sprintf("why BGP neighbor %s is down", i.Peer)
		}
		return fmt.Sprintf("why BGP neighbor %s is down on %s", i.Peer, i.Device)
	case KindOSPFDown:
		return fmt.Sprintf("why the OSPF adjacency between %s and %s is down", i.Device, i.Peer)
	case KindSweep:
		return "what is wrong with the network"
	}
	return i.Kind
}

// Validate checks that the intent has what its kind needs.
func (i Intent) Validate() error {
	need := func(what ...string) error {
		for k := 0; k < len(what); k += 2 {
			if strings.TrimSpace(what[k+1]) == "" {
				return fmt.Errorf("intent %s: %s is required", i.Kind, what[k])
			}
		}
		return nil
	}
	switch i.Kind {
	case KindReachability, KindPathMTU:
		return need("source", i.Source, "destination", i.Destination)
	case KindBGPDown:
		return need("peer", i.Peer) // the device is found when not given
	case KindOSPFDown:
		return need("device", i.Device, "peer", i.Peer)
	case KindSweep:
		return nil
	}
	return fmt.Errorf("intent: unknown kind %q (want %s, %s, %s, %s or %s)", i.Kind, KindReachability, KindPathMTU, KindBGPDown, KindOSPFDown, KindSweep)
}

// grammar is the natural-language grammar: the first rule that matches
// the normalised sentence wins. Names are \S+ (devices, hosts, addresses).
var grammar = []struct {
	re    *regexp.Regexp
	build func(m []string) Intent
}{
	{regexp.MustCompile(`(?i)^(?:what(?:'s| is) wrong|is (?:there )?anything wrong|diagnose|check|sweep|health ?check)(?: with)?(?: the)?(?: whole)?(?: network| fleet| lab)?$`),
		func(m []string) Intent { return Intent{Kind: KindSweep} }},
	{regexp.MustCompile(`(?i)^(?:why is |diagnose why |why )?(?:the )?bgp (?:neighbou?r|peer|session)(?: to)? (\S+) (?:down|not established|not up|idle|flapping)(?: on| at) (\S+)$`),
		func(m []string) Intent { return Intent{Kind: KindBGPDown, Peer: m[1], Device: m[2]} }},
	{regexp.MustCompile(`(?i)^(?:why is |diagnose why |why )?(?:the )?bgp (?:neighbou?r|peer|session)(?: to)? (\S+)(?: on| at) (\S+) (?:down|not established|not up|idle)$`),
		func(m []string) Intent { return Intent{Kind: KindBGPDown, Peer: m[1], Device: m[2]} }},
	{regexp.MustCompile(`(?i)^(?:why is |diagnose why |why )?(?:the )?bgp (?:neighbou?r|peer|session)(?: to)? (\S+)(?: is)? (?:down|not established|not up|idle)$`),
		func(m []string) Intent { return Intent{Kind: KindBGPDown, Peer: m[1]} }},
	{regexp.MustCompile(`(?i)^(?:why is |diagnose why |why )?(?:the )?ospf (?:adjacency|neighbou?rship|neighbou?r|session) (?:between|of) (\S+) and (\S+)(?: (?:down|not full|not up|stuck))?$`),
		func(m []string) Intent { return Intent{Kind: KindOSPFDown, Device: m[1], Peer: m[2]} }},
	{regexp.MustCompile(`(?i)^(?:what is |check |measure |find )?(?:the )?path ?mtu (?:from|between) (\S+) (?:to|and) (\S+)$`),
		func(m []string) Intent { return Intent{Kind: KindPathMTU, Source: m[1], Destination: m[2]} }},
	{regexp.MustCompile(`(?i)^(?:verify |check |test |diagnose )?(?:the )?(?:reachability|connectivity) (?:between|from) (\S+) (?:and|to) (\S+)(?: via (\S+))?$`),
		func(m []string) Intent {
			return Intent{Kind: KindReachability, Source: m[1], Destination: m[2], Via: m[3]}
		}},
	{regexp.MustCompile(`(?i)^(?:why )?(?:is there |check )?(?:packet )?(?:loss|latency|delay)(?: or (?:loss|latency|delay))? on the path (?:from|between) (\S+) (?:to|and) (\S+)(?: via (\S+))?$`),
		func(m []string) Intent {
			return Intent{Kind: KindReachability, Source: m[1], Destination: m[2], Via: m[3]}
		}},
	{regexp.MustCompile(`(?i)^(?:can|does) (\S+) (?:reach|ping|talk to) (\S+)(?: via (\S+))?$`),
		func(m []string) Intent {
			return Intent{Kind: KindReachability, Source: m[1], Destination: m[2], Via: m[3]}
		}},
	{regexp.MustCompile(`(?i)^(?:why )?(?:can't|cannot|can not) (\S+) (?:reach|ping) (\S+)$`),
		func(m []string) Intent { return Intent{Kind: KindReachability, Source: m[1], Destination: m[2]} }},
}

// ParseIntent reads an intent: structured (a JSON object or a YAML
// mapping with a "kind") or a sentence of the grammar (docs/controller.md).
// It is deterministic: the same text always gives the same intent.
func ParseIntent(text string) (Intent, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return Intent{}, fmt.Errorf("intent: empty")
	}
	if strings.HasPrefix(t, "{") {
		var in Intent
		dec := json.NewDecoder(strings.NewReader(t))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return Intent{}, fmt.Errorf("intent: JSON: %w", err)
		}
		return in, in.Validate()
	}
	if strings.HasPrefix(t, "kind:") || strings.Contains(t, "\nkind:") {
		var in Intent
		if err := yaml.Unmarshal([]byte(t), &in); err != nil {
			return Intent{}, fmt.Errorf("intent: YAML: %w", err)
		}
		return in, in.Validate()
	}
	s := strings.Join(strings.Fields(t), " ")
	s = strings.TrimRight(s, "?.! ")
	if strings.HasPrefix(strings.ToLower(s), "please ") {
		s = s[len("please "):]
	}
	for _, g := range grammar {
		if m := g.re.FindStringSubmatch(s); m != nil {
			in := g.build(m)
			in.Text = t
			return in, in.Validate()
		}
	}
	return Intent{}, fmt.Errorf("intent: %q matches no rule of the grammar; try e.g. %q, %q, %q, %q or %q", t,
		"verify reachability between r1 and h3", "why is BGP neighbor 10.0.12.2 down on r1",
		"why is the OSPF adjacency between r2 and r3 down", "path MTU from r1 to 10.3.0.10", "what is wrong with the network?")
}
