package console

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
)

// The policy's identities log in as themselves: a request with a bearer
// token is that token's identity (each request; no cookie, and no CSRF
// token needed since no browser adds the header on its own), and a
// browser presenting a client certificate the console's TLS layer
// verified gets a session of the certificate's identity (a cookie bound
// to that certificate's subject, CSRF tokens as any session). Their role
// in the console follows the policy: an identity that may commit a
// change on at least one device of the fleet is an operator, any other a
// viewer; an approval is then decided only by an identity the policy lets
// commit on every device the change touches.

// commitTool is the tool whose permission on a device lets an identity
// approve a change of that device in the console.
const commitTool = netproto.ToolCommit

// identify returns the session of r: its bearer token's identity, else
// the session of its cookie, else a new session for its verified client
// certificate (the cookie is set on w). A nil session with why == "" is
// a request that is not logged in; why says why a request's credentials
// are refused.
func (c *Console) identify(w http.ResponseWriter, r *http.Request) (s *session, why string) {
	pol := c.opts.Policy
	if r.Header.Get("Authorization") != "" {
		if pol == nil {
			return nil, "this console takes no bearer token: it has no policy"
		}
		id, ok, err := pol.AuthenticateHTTP(c.opts.Verifier, r)
		if err != nil || !ok {
			return nil, fmt.Sprintf("bearer token refused: %v", err)
		}
		return c.identitySession(id, true), ""
	}
	if s, ok := c.auth.session(r); ok {
		if s.cert == "" || s.cert == verifiedSubject(r) {
			return s, ""
		}
		// Another certificate (or none) than the one that opened it.
		c.auth.end(r)
	}
	if pol == nil || verifiedSubject(r) == "" {
		return nil, ""
	}
	s = c.identitySession(pol.IdentityFromTLS(*r.TLS), false)
	s.cert = verifiedSubject(r)
	id := c.auth.open(s)
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: id, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: true, MaxAge: int(c.opts.SessionTTL / time.Second)})
	c.log.Info("console: logged in with a client certificate", "user", s.user, "role", s.role, "remote", r.RemoteAddr)
	return s, ""
}

// verifiedSubject is the subject CN of the client certificate the TLS
// layer verified for r ("" when none).
func verifiedSubject(r *http.Request) string {
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 || len(r.TLS.PeerCertificates) == 0 {
		return ""
	}
	return r.TLS.PeerCertificates[0].Subject.CommonName
}

// identitySession is a session of a policy identity, in the console role
// its permissions give it.
func (c *Console) identitySession(id policy.Identity, header bool) *session {
	role := RoleViewer
	if c.mayCommitSomewhere(id) {
		role = RoleOperator
	}
	s := &session{user: id.String(), role: role, id: &id, header: header, expires: time.Now().Add(c.opts.SessionTTL)}
	if !header {
		s.csrf = randomToken()
	}
	return s
}

// mayCommitSomewhere tells whether the policy lets id commit on at least
// one device of the console's fleet.
func (c *Console) mayCommitSomewhere(id policy.Identity) bool {
	pol := c.opts.Policy
	if c.opts.Inventory == nil || len(c.opts.Inventory.Devices) == 0 {
		return pol.Decide(id, policy.Action{Kind: policy.CallTool, Tool: commitTool}) == nil
	}
	for _, d := range c.opts.Inventory.Devices {
		if pol.DecideOn(id, c.policyDevice(d.Name), policy.Action{Kind: policy.CallTool, Tool: commitTool}) == nil {
			return true
		}
	}
	return false
}

// policyDevice is the policy's view of the fleet's device called name.
func (c *Console) policyDevice(name string) policy.Device {
	if c.opts.Inventory != nil {
		for _, d := range c.opts.Inventory.Devices {
			if d.Name == name {
				return policy.Device{Name: name, Site: d.Site, Role: d.Role, Tags: d.Tags}
			}
		}
	}
	return policy.Device{Name: name}
}

// errForbidden is a refusal of a decision (HTTP 403).
var errForbidden = errors.New("forbidden")

// mayDecide returns nil when s may decide (approve, decline, confirm or
// roll back) a change made with tool on devices requested by requester
// ("" for none), else why not, wrapping errForbidden: a viewer may not;
// a policy identity needs the policy's permission to call tool on every
// device; with four-eyes (approval.fourEyes) the requester may not
// decide their own change.
func (c *Console) mayDecide(s *session, tool, requester string, devices []string) error {
	if !s.operator() {
		return fmt.Errorf("%w: the %s role may look, not decide", errForbidden, s.role)
	}
	if s.id != nil {
		for _, d := range devices {
			if err := c.opts.Policy.DecideOn(*s.id, c.policyDevice(d), policy.Action{Kind: policy.CallTool, Tool: tool}); err != nil {
				return fmt.Errorf("%w: %v", errForbidden, err)
			}
		}
	}
	if requester != "" && c.fourEyes() && sameSubject(requester, s.user) {
		return fmt.Errorf("%w: %w: %s requested this change and may not approve it; another approver must", errForbidden, errFourEyes, requester)
	}
	return nil
}

// fourEyes tells whether the policy wants a second person to approve a
// change (approval.fourEyes).
func (c *Console) fourEyes() bool { return c.opts.Policy != nil && c.opts.Policy.FourEyes() }

// FourEyes tells whether the console's policy wants a second person to
// approve a change: the approval questions of a host's writes then go to
// the console's queue (Gate), not back to that host.
func (c *Console) FourEyes() bool { return c.fourEyes() }

// sameSubject tells whether two identities name the same person: their
// subjects, whatever the source ("mtls:alice", "jwt:alice" and the
// console login "alice" are one person).
func sameSubject(a, b string) bool {
	return a != "" && subjectOf(a) == subjectOf(b)
}

// subjectOf is an identity's subject without its source.
func subjectOf(id string) string {
	for _, src := range []string{policy.SourceMTLS, policy.SourceJWT, "stdio", "console"} {
		if s, ok := strings.CutPrefix(id, src+":"); ok {
			return s
		}
	}
	return id
}
