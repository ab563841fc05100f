package claims

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tdproject/td/policy/domain"
)

// The record: a claim is the message of a parentless commit on the empty
// tree, which the claim's reference names. Its first line says what it is,
// for git log; the body is "key: value" lines, version first, so that a
// later td can change the format and an older one refuse what it cannot
// read instead of misreading it:
//
//	td claim td-k3x9qa
//
//	td-claim: 1
//	issue: td-k3x9qa
//	session: ses_c81kd0zz
//	actor: Bob <bob@example.com>
//	agent: primary
//	worktree: /home/bob/src/app
//	host: bobs-laptop
//	claimed: 2026-11-21T10:04:11Z
//	heartbeat: 2026-11-21T10:34:11Z
//	expires: 2026-11-21T12:34:11Z
//	ends-seen: 0
//	published: 2026-11-21T10:04:11Z
//
// agent is absent when a person holds the claim. ends-seen counts the
// entries of the issue's ledger that ended the work (unstart, close,
// approve, reopen) in the second the claim was taken, as the taker's
// ledger held them (domain.Claim.EndsSeen); a record without it, written
// before td kept it, reads as -1. published is when the claim was first
// put on the claims remote (domain.Claim.Published), absent while it is
// not, and in records of a td that did not publish. Other keys are ignored, so that a later
// td may add one without a new version. Values are single lines: td
// refuses to write a record whose values hold a line break.

// recordVersion is the version of the record td writes and reads.
const recordVersion = 1

// formatRecord encodes a claim as a commit message.
func formatRecord(c *domain.Claim) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "td claim %s\n\ntd-claim: %d\n", c.Issue, recordVersion)
	for _, kv := range [][2]string{
		{"issue", c.Issue}, {"session", c.Session}, {"actor", c.Actor.Identity}, {"agent", string(c.Actor.Agent)},
		{"worktree", c.Worktree}, {"host", c.Host},
		{"claimed", stamp(c.Claimed)}, {"heartbeat", stamp(c.Heartbeat)}, {"expires", stamp(c.Expires)},
		{"ends-seen", strconv.Itoa(c.EndsSeen)}, {"published", publishedStamp(c)},
	} {
		if kv[1] == "" && (kv[0] == "agent" || kv[0] == "published") || kv[0] == "ends-seen" && c.EndsSeen < 0 {
			continue
		}
		if strings.ContainsAny(kv[1], "\r\n\x00") {
			return "", fmt.Errorf("the claim's %s holds a line break", kv[0])
		}
		fmt.Fprintf(&b, "%s: %s\n", kv[0], kv[1])
	}
	return b.String(), nil
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// publishedStamp is the record's published value, "" for a claim not
// published.
func publishedStamp(c *domain.Claim) string {
	if c.Published.IsZero() {
		return ""
	}
	return stamp(c.Published)
}

// parseStamp reads a record's time: RFC 3339, whose year in UTC is one a
// record can be written back with (1 to 9999).
func parseStamp(v string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, v)
	if err == nil {
		if y := t.UTC().Year(); y < 1 || y > 9999 {
			return time.Time{}, fmt.Errorf("%s is out of range", v)
		}
	}
	return t, err
}

// parseRecord decodes a claim from a commit message.
func parseRecord(msg string) (*domain.Claim, error) {
	c := &domain.Claim{EndsSeen: -1}
	// The keys a record must hold, crossed off as they are read: td ready
	// parses every claim, and a map and a line scanner for each cost more
	// than the parse.
	required := []string{"td-claim", "issue", "session", "expires"}
	var seen [4]bool
	first := true
	for rest := msg; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimSuffix(line, "\r")
		if first {
			first = false
			if !strings.HasPrefix(line, "td claim ") {
				return nil, fmt.Errorf("not a td claim record")
			}
			continue
		}
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			return nil, fmt.Errorf("claim record line %q is not key: value", line)
		}
		if i := slices.Index(required, k); i >= 0 {
			seen[i] = true
		}
		var err error
		switch k {
		case "td-claim":
			n, perr := strconv.Atoi(v)
			if perr != nil || n != recordVersion {
				return nil, fmt.Errorf("claim record version %q is not one this td reads (%d); a newer td wrote it", v, recordVersion)
			}
		case "issue":
			c.Issue = v
		case "session":
			c.Session = v
		case "actor":
			c.Actor.Identity = v
		case "agent":
			c.Actor.Agent = domain.AgentPath(v)
		case "worktree":
			c.Worktree = v
		case "host":
			c.Host = v
		case "claimed":
			c.Claimed, err = parseStamp(v)
		case "heartbeat":
			c.Heartbeat, err = parseStamp(v)
		case "expires":
			c.Expires, err = parseStamp(v)
		case "published":
			c.Published, err = parseStamp(v)
		case "ends-seen":
			n, perr := strconv.Atoi(v)
			if perr != nil || n < 0 {
				err = fmt.Errorf("%q is not a count", v)
			}
			c.EndsSeen = n
		}
		if err != nil {
			return nil, fmt.Errorf("claim record %s: %w", k, err)
		}
	}
	for i, k := range required {
		if !seen[i] {
			return nil, fmt.Errorf("claim record lacks %s", k)
		}
	}
	return c, nil
}
