package console

import (
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/netmcp/netmcp/d2d/report"
)

// d2dIDRE is what a D2D report's id may be: it names the report's file.
var d2dIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// maxD2DSize bounds the size of a D2D report file the console reads.
const maxD2DSize = 8 << 20

// d2dReport is a device-to-device report as the console shows it: what it
// claims, and the result of checking every signature of it against the
// agents' CA, as `netmcp report verify` does (report.VerifyJSON).
type d2dReport struct {
	ID      string
	Rep     report.Report
	Checks  []report.Check
	Signers []report.SignerCount
	// Err is why it failed verification ("" when every signature checked).
	Err string
	// Unparsed tells that the file is not a report the verifier can read
	// (Rep is then empty).
	Unparsed bool
}

// Verified tells whether every signature of the report checked.
func (d d2dReport) Verified() bool { return d.Err == "" }

// d2dRoots parses the PEM of the agents' CA (nil for none).
func d2dRoots(pem []byte) (*x509.CertPool, error) {
	if len(pem) == 0 {
		return nil, nil
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return nil, errors.New("console: the D2D CA holds no certificate")
	}
	return roots, nil
}

// D2DSource is where the console reads the D2D reports (Options.D2D).
type D2DSource interface {
	// IDs lists the ids of the reports held, sorted.
	IDs() ([]string, error)
	// Get returns report id as it was signed; an error wrapping
	// os.ErrNotExist when it is not held.
	Get(id string) ([]byte, error)
}

// d2dEnabled tells whether the console lists D2D reports.
func (c *Console) d2dEnabled() bool { return c.opts.D2DReports != "" || c.opts.D2D != nil }

// d2dIDs lists the ids of the D2D reports, sorted.
func (c *Console) d2dIDs() ([]string, error) {
	if c.opts.D2D != nil {
		return c.opts.D2D.IDs()
	}
	ents, err := os.ReadDir(c.opts.D2DReports)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), ".json"); ok && d2dIDRE.MatchString(id) && e.Type().IsRegular() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// loadD2D reads and verifies D2D report id, now.
func (c *Console) loadD2D(id string) (d2dReport, error) {
	out := d2dReport{ID: id}
	raw, err := c.readD2D(id)
	if err != nil {
		return out, err
	}
	n := len(raw)
	if n > maxD2DSize {
		out.Err, out.Unparsed = "the report is larger than 8 MiB", true
		return out, nil
	}
	if c.d2dRoots == nil {
		out.Err = "no CA to check it against (controller serve --d2d-ca)"
		out.Rep, _ = report.Parse(raw[:n])
		out.Unparsed = out.Rep.ID == ""
		return out, nil
	}
	rep, checks, err := report.VerifyJSON(raw[:n], report.CAVerifier(c.d2dRoots, time.Now()))
	out.Rep, out.Checks = rep, checks
	if err != nil {
		out.Err, out.Unparsed = err.Error(), rep.ID == ""
		if out.Unparsed {
			// Not readable as the verifier reads it: show the claims of
			// nothing, only the reason.
			out.Rep = report.Report{}
		}
		return out, nil
	}
	out.Signers = rep.SignersInPath(checks)
	return out, nil
}

// readD2D reads D2D report id, up to a byte more than maxD2DSize.
func (c *Console) readD2D(id string) ([]byte, error) {
	if c.opts.D2D != nil {
		b, err := c.opts.D2D.Get(id)
		if len(b) > maxD2DSize+1 {
			b = b[:maxD2DSize+1]
		}
		return b, err
	}
	f, err := os.Open(filepath.Join(c.opts.D2DReports, id+".json"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxD2DSize+1))
}

// d2dList is the list of D2D reports the reports page shows.
type d2dList struct {
	Enabled bool
	Rows    []d2dReport
	Total   int
	Err     string
}

// d2dRows verifies the newest D2D reports, for the reports page.
func (c *Console) d2dRows() d2dList {
	l := d2dList{Enabled: c.d2dEnabled()}
	if !l.Enabled {
		return l
	}
	ids, err := c.d2dIDs()
	if err != nil {
		l.Err = err.Error()
		return l
	}
	l.Total = len(ids)
	for i := len(ids) - 1; i >= 0 && len(l.Rows) < maxListed; i-- {
		d, err := c.loadD2D(ids[i])
		if err != nil {
			d.Err, d.Unparsed = err.Error(), true
		}
		l.Rows = append(l.Rows, d)
	}
	return l
}

// serveD2D shows one D2D report with every signature checked.
func (c *Console) serveD2D(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !c.d2dEnabled() || !d2dIDRE.MatchString(id) {
		http.NotFound(w, r)
		return
	}
	d, err := c.loadD2D(id)
	if errors.Is(err, os.ErrNotExist) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		c.badRequest(w, r, http.StatusInternalServerError, "The report cannot be read: "+err.Error())
		return
	}
	c.render(w, http.StatusOK, "d2d.html", struct {
		page
		D d2dReport
	}{c.basePage(r, "D2D report "+id), d})
}
