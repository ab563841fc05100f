package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tdproject/td/policy/domain"
)

// The cast of seed 001's lead/worker story: the lead files the issue, a
// worker implements it, a third session comments, a fourth never touched it.
const (
	lead      = "ses_lead0001"
	worker    = "ses_work0001"
	commenter = "ses_cmnt0001"
	outsider  = "ses_outs0001"
	alice     = "Alice <alice@example.com>"
	bob       = "Bob <bob@example.com>"
)

// issueFacts is td-abc123 as the lead filed it and the worker took it up, as
// seen by reviewer; edits adjust it for one row.
func issueFacts(reviewer string, edits ...func(*Facts)) Facts {
	f := Facts{
		IssueID:        "td-abc123",
		Reviewer:       reviewer,
		ReviewerAuthor: alice,
		ReviewerRole:   domain.RoleOperator,
		CreatorClaims: []Claim{
			{Source: SourceFrontmatter, Session: lead},
			{Source: SourceLedger, Session: lead},
		},
		Implementer:           worker,
		ImplementationHistory: []string{worker},
		Involved:              []string{lead, worker, commenter},
	}
	for _, e := range edits {
		e(&f)
	}
	return f
}

// rulesOf is the rules of mode with agent_approval on, its default.
func rulesOf(mode Mode) Rules { return Rules{Mode: mode, AgentApproval: true} }

// anyRefusal in a wanted Decision accepts any non-empty refusal.
const anyRefusal = "*"

var (
	allowed         = Decision{Allowed: true}
	creatorAllowed  = Decision{Allowed: true, CreatorException: true}
	refusedSomehow  = Decision{Refusal: anyRefusal}
	selfCloseResult = Decision{Allowed: true, SelfCloseException: true}
)

func checkDecision(t *testing.T, got, want Decision) {
	t.Helper()
	if want.Refusal == anyRefusal {
		if got.Refusal == "" {
			t.Errorf("refusal is empty; want a reason (decision %+v)", got)
		}
		want.Refusal = got.Refusal
	}
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if got.Allowed && got.Refusal != "" {
		t.Errorf("allowed with a refusal: %q", got.Refusal)
	}
	if strings.ContainsAny(got.Refusal, "\n") || strings.HasSuffix(got.Refusal, ".") {
		t.Errorf("refusal is not one sentence in td's style: %q", got.Refusal)
	}
}

func TestApprovalMatrix(t *testing.T) {
	withReason := "the worker's tests cover the callback"
	implementerEmpty := func(f *Facts) { f.Implementer = ""; f.ImplementationHistory = nil; f.Involved = []string{lead} }
	rows := []struct {
		name     string
		facts    Facts
		reason   string
		strict   Decision
		balanced Decision
	}{
		{
			name:     "creator with reason",
			facts:    issueFacts(lead),
			reason:   withReason,
			strict:   Decision{Refusal: `ses_lead0001 created td-abc123 and the strict review policy blocks its creator; a session with no history on it must approve it, or enable balanced_review_policy to let the creator approve with a reason`},
			balanced: creatorAllowed,
		},
		{
			name:     "creator with a blank reason",
			facts:    issueFacts(lead),
			reason:   "   ",
			strict:   refusedSomehow,
			balanced: Decision{ReasonRequired: true, Refusal: `ses_lead0001 created td-abc123: the creator approves it only with a reason, td approve td-abc123 --reason "..."`},
		},
		{
			name:     "creator without reason",
			facts:    issueFacts(lead),
			strict:   refusedSomehow,
			balanced: Decision{ReasonRequired: true, Refusal: `ses_lead0001 created td-abc123: the creator approves it only with a reason, td approve td-abc123 --reason "..."`},
		},
		{
			name: "creator named by the frontmatter alone",
			facts: issueFacts(lead, func(f *Facts) {
				f.CreatorClaims = []Claim{{Source: SourceFrontmatter, Session: lead}}
			}),
			reason:   withReason,
			strict:   refusedSomehow,
			balanced: Decision{Refusal: "only the frontmatter names ses_lead0001 as the creator of td-abc123 (no ledger entry or commit confirms it, and the file can be edited by hand), so it gets no creator exception; a session with no history on it must approve it"},
		},
		{
			name: "creator named by the frontmatter and the ledger",
			facts: issueFacts(lead, func(f *Facts) {
				f.CreatorClaims = []Claim{{Source: SourceFrontmatter, Session: lead}, {Source: SourceLedger, Session: lead}}
			}),
			reason:   withReason,
			strict:   refusedSomehow,
			balanced: creatorAllowed,
		},
		{
			name:     "creator without reason, no issue ID",
			facts:    issueFacts(lead, func(f *Facts) { f.IssueID = "" }),
			strict:   refusedSomehow,
			balanced: Decision{ReasonRequired: true, Refusal: `ses_lead0001 created this issue: the creator approves it only with a reason, td approve ID --reason "..."`},
		},
		{
			name:     "implementer",
			facts:    issueFacts(worker),
			reason:   withReason,
			strict:   Decision{Refusal: "ses_work0001 implements td-abc123; a different person or agent must approve it"},
			balanced: Decision{Refusal: "ses_work0001 implements td-abc123; a different person or agent must approve it"},
		},
		{
			name: "creator who also started",
			facts: issueFacts(lead, func(f *Facts) {
				f.Implementer = lead
				f.ImplementationHistory = []string{lead}
				f.Involved = []string{lead}
			}),
			reason:   withReason,
			strict:   Decision{Refusal: "ses_lead0001 implements td-abc123; a different person or agent must approve it"},
			balanced: Decision{Refusal: "ses_lead0001 implements td-abc123; a different person or agent must approve it"},
		},
		{
			name: "creator who unstarted, another session restarted",
			facts: issueFacts(lead, func(f *Facts) {
				f.ImplementationHistory = []string{lead, worker}
			}),
			reason:   withReason,
			strict:   Decision{Refusal: "ses_lead0001 implemented td-abc123 (it started the work); a different person or agent must approve it"},
			balanced: Decision{Refusal: "ses_lead0001 implemented td-abc123 (it started the work); a different person or agent must approve it"},
		},
		{
			name:     "commenter who is not the creator",
			facts:    issueFacts(commenter),
			reason:   withReason,
			strict:   Decision{Refusal: "ses_cmnt0001 has history on td-abc123 and the strict review policy blocks every involved session; a session with no history on it must approve it"},
			balanced: Decision{Refusal: "ses_cmnt0001 is involved in td-abc123 (it has ledger or commit history on it); a session with no history on it must approve it"},
		},
		{
			name:     "uninvolved reviewer",
			facts:    issueFacts(outsider),
			strict:   allowed,
			balanced: allowed,
		},
		{
			name:     "uninvolved reviewer, other identity",
			facts:    issueFacts(outsider, func(f *Facts) { f.ReviewerAuthor = bob }),
			strict:   allowed,
			balanced: allowed,
		},
		{
			name:     "minor issue, implementer approves",
			facts:    issueFacts(worker, func(f *Facts) { f.Minor = true }),
			strict:   allowed,
			balanced: allowed,
		},
		{
			name:     "minor issue, implementer who marked it minor itself",
			facts:    issueFacts(worker, func(f *Facts) { f.Minor = true; f.MinorMarkedBy = []string{worker} }),
			reason:   withReason,
			strict:   Decision{Refusal: "ses_work0001 marked td-abc123 minor itself, so the minor bypass does not apply: ses_work0001 implements td-abc123; a different person or agent must approve it"},
			balanced: Decision{Refusal: "ses_work0001 marked td-abc123 minor itself, so the minor bypass does not apply: ses_work0001 implements td-abc123; a different person or agent must approve it"},
		},
		{
			name:     "minor issue marked by the implementer, another session approves",
			facts:    issueFacts(outsider, func(f *Facts) { f.Minor = true; f.MinorMarkedBy = []string{worker} }),
			strict:   allowed,
			balanced: allowed,
		},
		{
			name:     "minor issue marked by the creator: it approves as creator",
			facts:    issueFacts(lead, func(f *Facts) { f.Minor = true; f.MinorMarkedBy = []string{lead} }),
			reason:   withReason,
			strict:   refusedSomehow,
			balanced: creatorAllowed,
		},
		{
			name:     "minor issue marked by the creator, no reason",
			facts:    issueFacts(lead, func(f *Facts) { f.Minor = true; f.MinorMarkedBy = []string{lead} }),
			strict:   refusedSomehow,
			balanced: Decision{ReasonRequired: true, Refusal: `ses_lead0001 marked td-abc123 minor itself, so the minor bypass does not apply: ses_lead0001 created td-abc123: the creator approves it only with a reason, td approve td-abc123 --reason "..."`},
		},
		{
			name:     "minor issue, creator approves without reason",
			facts:    issueFacts(lead, func(f *Facts) { f.Minor = true }),
			strict:   allowed,
			balanced: allowed,
		},
		{
			name:     "creator when the implementer is empty",
			facts:    issueFacts(lead, implementerEmpty),
			reason:   withReason,
			strict:   refusedSomehow,
			balanced: Decision{Refusal: "ses_lead0001 created td-abc123 and no other session has implemented it, so the creator exception does not apply; a session with no history on it must approve it"},
		},
		{
			name: "creator when the implementer field is empty but the history says another session started",
			facts: issueFacts(lead, func(f *Facts) {
				f.Implementer = ""
			}),
			reason:   withReason,
			strict:   refusedSomehow,
			balanced: creatorAllowed,
		},
		{
			name: "frontmatter created_by edited: the session it names",
			facts: issueFacts(outsider, func(f *Facts) {
				f.CreatorClaims[0].Session = outsider
			}),
			reason: withReason,
			strict: Decision{
				Refusal:  "the sources disagree about who created td-abc123 (frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001), so ses_outs0001 counts as involved; a session with no history on it must approve it",
				Conflict: "frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001",
			},
			balanced: Decision{
				Refusal:  "the sources disagree about who created td-abc123 (frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001), so ses_outs0001 counts as involved and gets no creator exception; a session with no history on it must approve it",
				Conflict: "frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001",
			},
		},
		{
			name: "frontmatter created_by edited: the ledger's creator loses the exception",
			facts: issueFacts(lead, func(f *Facts) {
				f.CreatorClaims[0].Session = outsider
			}),
			reason: withReason,
			strict: Decision{Refusal: anyRefusal, Conflict: "frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001"},
			balanced: Decision{
				Refusal:  "the sources disagree about who created td-abc123 (frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001), so ses_lead0001 counts as involved and gets no creator exception; a session with no history on it must approve it, or restore created_by: ses_lead0001 in the frontmatter, as the history says, and approve with --reason",
				Conflict: "frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001",
			},
		},
		{
			name: "frontmatter created_by edited, the creating commit by the ledger's creator: restoring it is the way out",
			facts: issueFacts(lead, func(f *Facts) {
				f.CreatorClaims[0].Session = outsider
				f.CreatorClaims = append(f.CreatorClaims, Claim{Source: SourceCommit, Author: alice})
			}),
			reason: withReason,
			strict: Decision{Refusal: anyRefusal, Conflict: "frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001"},
			balanced: Decision{
				Refusal:  "the sources disagree about who created td-abc123 (frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001), so ses_lead0001 counts as involved and gets no creator exception; a session with no history on it must approve it, or restore created_by: ses_lead0001 in the frontmatter, as the history says, and approve with --reason",
				Conflict: "frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001",
			},
		},
		{
			name: "frontmatter created_by edited, the creating commit by whoever landed it: restoring it settles it",
			facts: issueFacts(lead, func(f *Facts) {
				f.CreatorClaims[0].Session = outsider
				f.CreatorClaims = append(f.CreatorClaims, Claim{Source: SourceCommit, Author: bob})
			}),
			reason: withReason,
			strict: Decision{Refusal: anyRefusal, Conflict: "frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001"},
			balanced: Decision{
				Refusal:  "the sources disagree about who created td-abc123 (frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001), so ses_lead0001 counts as involved and gets no creator exception; a session with no history on it must approve it, or restore created_by: ses_lead0001 in the frontmatter, as the history says, and approve with --reason",
				Conflict: "frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001",
			},
		},
		{
			name: "ledger and commit trailer disagree: no way out through the frontmatter",
			facts: issueFacts(lead, func(f *Facts) {
				f.CreatorClaims[0].Session = outsider
				f.CreatorClaims = append(f.CreatorClaims, Claim{Source: SourceCommit, Session: commenter})
			}),
			reason: withReason,
			strict: Decision{Refusal: anyRefusal, Conflict: "frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001 and the commit trailer says ses_cmnt0001"},
			balanced: Decision{
				Refusal:  "the sources disagree about who created td-abc123 (frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001 and the commit trailer says ses_cmnt0001), so ses_lead0001 counts as involved and gets no creator exception; a session with no history on it must approve it",
				Conflict: "frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001 and the commit trailer says ses_cmnt0001",
			},
		},
		{
			name: "frontmatter created_by edited: an uninvolved session may still approve",
			facts: issueFacts("ses_thrd0001", func(f *Facts) {
				f.CreatorClaims[0].Session = outsider
			}),
			strict:   Decision{Allowed: true, Conflict: "frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001"},
			balanced: Decision{Allowed: true, Conflict: "frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001"},
		},
		{
			name: "commit claim by author only: the author's session is the creator",
			facts: issueFacts(lead, func(f *Facts) {
				f.CreatorClaims = []Claim{{Source: SourceCommit, Author: alice}}
			}),
			reason:   withReason,
			strict:   refusedSomehow,
			balanced: creatorAllowed,
		},
		{
			name: "commit claim by author only: another identity is not the creator",
			facts: issueFacts(outsider, func(f *Facts) {
				f.ReviewerAuthor = bob
				f.CreatorClaims = []Claim{{Source: SourceCommit, Author: alice}}
			}),
			strict:   allowed,
			balanced: allowed,
		},
		{
			name: "commit claim by author only, with agreeing session claims",
			facts: issueFacts(lead, func(f *Facts) {
				f.CreatorClaims = append(f.CreatorClaims, Claim{Source: SourceCommit, Author: alice})
			}),
			reason:   withReason,
			strict:   refusedSomehow,
			balanced: creatorAllowed,
		},
		{
			name: "commit claim by author only, same person's other session",
			facts: issueFacts(outsider, func(f *Facts) {
				f.CreatorClaims = append(f.CreatorClaims, Claim{Source: SourceCommit, Author: alice})
			}),
			strict:   allowed,
			balanced: allowed,
		},
		{
			name: "a squash merge: the creating commit is by whoever landed it, the ledger names the creator",
			facts: issueFacts(lead, func(f *Facts) {
				f.ReviewerAuthor = bob
				f.CreatorClaims = []Claim{{Source: SourceLedger, Session: lead}, {Source: SourceCommit, Author: alice}}
			}),
			reason:   withReason,
			strict:   Decision{Refusal: anyRefusal},
			balanced: Decision{Allowed: true, CreatorException: true},
		},
		{
			name: "a commit author without a trailer is not evidence beside the ledger",
			facts: issueFacts(lead, func(f *Facts) {
				f.ReviewerAuthor = ""
				f.CreatorClaims = append(f.CreatorClaims, Claim{Source: SourceCommit, Author: alice})
			}),
			reason:   withReason,
			strict:   refusedSomehow,
			balanced: Decision{Allowed: true, CreatorException: true},
		},
		{
			name: "with no ledger, the creating commit's author still counts",
			facts: issueFacts(lead, func(f *Facts) {
				f.ReviewerAuthor = bob
				f.CreatorClaims = []Claim{{Source: SourceFrontmatter, Session: lead}, {Source: SourceCommit, Author: alice}}
			}),
			reason:   withReason,
			strict:   Decision{Refusal: anyRefusal, Conflict: "frontmatter says created_by ses_lead0001 but the creating commit is by Alice <alice@example.com>, not ses_lead0001's identity Bob <bob@example.com>"},
			balanced: Decision{Refusal: anyRefusal, Conflict: "frontmatter says created_by ses_lead0001 but the creating commit is by Alice <alice@example.com>, not ses_lead0001's identity Bob <bob@example.com>"},
		},
		{
			name: "commit trailer disagrees with frontmatter and ledger",
			facts: issueFacts(commenter, func(f *Facts) {
				f.CreatorClaims = append(f.CreatorClaims, Claim{Source: SourceCommit, Session: commenter, Author: bob})
			}),
			reason:   withReason,
			strict:   Decision{Refusal: anyRefusal, Conflict: "frontmatter says created_by ses_lead0001 but the commit trailer says ses_cmnt0001"},
			balanced: Decision{Refusal: anyRefusal, Conflict: "frontmatter says created_by ses_lead0001 but the commit trailer says ses_cmnt0001"},
		},
		{
			name:     "no session asking",
			facts:    issueFacts(""),
			strict:   Decision{Refusal: "no session is asking to approve td-abc123; start one with td session start"},
			balanced: Decision{Refusal: "no session is asking to approve td-abc123; start one with td session start"},
		},
		{
			name:     "no session asking on an issue nobody implemented",
			facts:    issueFacts("", implementerEmpty),
			strict:   refusedSomehow,
			balanced: refusedSomehow,
		},
	}
	for _, row := range rows {
		t.Run(row.name+"/strict", func(t *testing.T) {
			checkDecision(t, Approval(rulesOf(Strict), row.facts, row.reason), row.strict)
		})
		t.Run(row.name+"/balanced", func(t *testing.T) {
			checkDecision(t, Approval(rulesOf(Balanced), row.facts, row.reason), row.balanced)
		})
		t.Run(row.name+"/unknown mode is strict", func(t *testing.T) {
			checkDecision(t, Approval(rulesOf(""), row.facts, row.reason), row.strict)
		})
	}
}

func TestApprovalDoesNotAliasClaims(t *testing.T) {
	f := issueFacts(lead, func(f *Facts) {
		f.CreatorClaims = []Claim{{Source: SourceCommit, Author: alice}, {Source: SourceLedger, Session: lead}, {Source: SourceFrontmatter, Session: lead}}
	})
	Approval(rulesOf(Balanced), f, "ok")
	if f.CreatorClaims[0].Source != SourceCommit {
		t.Fatalf("Approval reordered the caller's claims: %+v", f.CreatorClaims)
	}
}

func TestCreator(t *testing.T) {
	rows := []struct {
		name         string
		claims       []Claim
		session      string
		conflictWant string
	}{
		{name: "no claims"},
		{name: "claims naming nobody", claims: []Claim{{Source: SourceFrontmatter}}},
		{
			name:    "all agree",
			claims:  []Claim{{Source: SourceFrontmatter, Session: lead}, {Source: SourceLedger, Session: lead}, {Source: SourceCommit, Session: lead, Author: alice}},
			session: lead,
		},
		{
			name:         "frontmatter edited",
			claims:       []Claim{{Source: SourceFrontmatter, Session: "ses_b"}, {Source: SourceLedger, Session: "ses_a"}},
			conflictWant: "frontmatter says created_by ses_b but the ledger says ses_a",
		},
		{
			name:         "described in source order whatever the order given",
			claims:       []Claim{{Source: SourceCommit, Session: "ses_a"}, {Source: SourceLedger, Session: "ses_a"}, {Source: SourceFrontmatter, Session: "ses_b"}},
			conflictWant: "frontmatter says created_by ses_b but the ledger says ses_a and the commit trailer says ses_a",
		},
		{
			name:         "two creating commits by different authors",
			claims:       []Claim{{Source: SourceCommit, Author: alice}, {Source: SourceCommit, Author: bob}},
			conflictWant: "the creating commit is by Alice <alice@example.com> but the creating commit is by Bob <bob@example.com>",
		},
		{
			name:    "a session and an author are not compared",
			claims:  []Claim{{Source: SourceLedger, Session: "ses_a"}, {Source: SourceCommit, Author: bob}},
			session: "ses_a",
		},
		{
			name:   "author only",
			claims: []Claim{{Source: SourceCommit, Author: bob}},
		},
		{
			name:         "unknown source",
			claims:       []Claim{{Source: SourceLedger, Session: "ses_a"}, {Source: "import", Session: "ses_c"}},
			conflictWant: "the ledger says ses_a but import says ses_c",
		},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			session, conflict := Creator(row.claims)
			if session != row.session || conflict != row.conflictWant {
				t.Errorf("Creator = (%q, %q); want (%q, %q)", session, conflict, row.session, row.conflictWant)
			}
		})
	}
}

func TestClose(t *testing.T) {
	const why, self = "duplicate of the login work", "the operator asked me to close it"
	nobodyImplemented := func(f *Facts) { f.Implementer = ""; f.ImplementationHistory = nil }
	rows := []struct {
		name         string
		mode         Mode
		facts        Facts
		reason, self string
		want         Decision
	}{
		{name: "nothing to review: the creator", mode: Strict, facts: issueFacts(lead, nobodyImplemented), want: allowed},
		{name: "nothing to review: a commenter", mode: Balanced, facts: issueFacts(commenter, nobodyImplemented), want: allowed},
		{
			name:  "nothing to review, conflict still reported",
			mode:  Balanced,
			facts: issueFacts(commenter, nobodyImplemented, func(f *Facts) { f.CreatorClaims[0].Session = commenter }),
			want:  Decision{Allowed: true, Conflict: "frontmatter says created_by ses_cmnt0001 but the ledger says ses_lead0001"},
		},
		{
			name:  "implementer without exception",
			mode:  Balanced,
			facts: issueFacts(worker),
			want:  Decision{Refusal: `ses_work0001 implements td-abc123; a different person or agent must close it, or pass --self-close-exception "why" to close it anyway (audited)`},
		},
		{name: "implementer with self-close exception", mode: Balanced, facts: issueFacts(worker), self: self, want: selfCloseResult},
		{name: "implementer with a blank self-close reason", mode: Balanced, facts: issueFacts(worker), self: "  ", want: refusedSomehow},
		{name: "implementer of a minor issue", mode: Balanced, facts: issueFacts(worker, func(f *Facts) { f.Minor = true }), want: allowed},
		{
			name:  "implementer of an issue it marked minor itself",
			mode:  Balanced,
			facts: issueFacts(worker, func(f *Facts) { f.Minor = true; f.MinorMarkedBy = []string{worker} }),
			want:  Decision{Refusal: `ses_work0001 marked td-abc123 minor itself, so the minor bypass does not apply: ses_work0001 implements td-abc123; a different person or agent must close it, or pass --self-close-exception "why" to close it anyway (audited)`},
		},
		{name: "creator with close reason", mode: Balanced, facts: issueFacts(lead), reason: why, want: creatorAllowed},
		{
			name:  "creator without close reason",
			mode:  Balanced,
			facts: issueFacts(lead),
			want:  Decision{ReasonRequired: true, Refusal: `ses_lead0001 created td-abc123: the creator closes it only with a reason, td close td-abc123 --reason "...", or --self-close-exception "..."`},
		},
		{name: "creator without close reason, with self-close exception", mode: Balanced, facts: issueFacts(lead), self: self, want: selfCloseResult},
		{
			name:   "strict creator with reason",
			mode:   Strict,
			facts:  issueFacts(lead),
			reason: why,
			want:   Decision{Refusal: `ses_lead0001 created td-abc123 and the strict review policy blocks its creator; a session with no history on it must close it, or pass --self-close-exception "why" to close it anyway (audited), or enable balanced_review_policy to let the creator close with a reason`},
		},
		{name: "strict creator with self-close exception", mode: Strict, facts: issueFacts(lead), self: self, want: selfCloseResult},
		{
			name:  "commenter",
			mode:  Balanced,
			facts: issueFacts(commenter),
			want:  Decision{Refusal: `ses_cmnt0001 is involved in td-abc123 (it has ledger or commit history on it); a session with no history on it must close it, or pass --self-close-exception "why" to close it anyway (audited)`},
		},
		{name: "uninvolved", mode: Strict, facts: issueFacts(outsider), want: allowed},
		{
			name:  "an agent implementer is not told a way round",
			mode:  Balanced,
			facts: issueFacts(worker, func(f *Facts) { f.ReviewerRole = domain.RoleAgent }),
			want:  Decision{Refusal: `ses_work0001 implements td-abc123; a different person or agent must close it`},
		},
		{
			name:  "an agent creator is told only of the reason",
			mode:  Balanced,
			facts: issueFacts(lead, func(f *Facts) { f.ReviewerRole = domain.RoleAgent }),
			want:  Decision{ReasonRequired: true, Refusal: `ses_lead0001 created td-abc123: the creator closes it only with a reason, td close td-abc123 --reason "..."`},
		},
		{
			name:  "an involved agent is not told a way round",
			mode:  Balanced,
			facts: issueFacts(commenter, func(f *Facts) { f.ReviewerRole = domain.RoleAgent }),
			want:  Decision{Refusal: `ses_cmnt0001 is involved in td-abc123 (it has ledger or commit history on it); a session with no history on it must close it`},
		},
		{
			name:  "self-close keeps the conflict for the audit",
			mode:  Balanced,
			facts: issueFacts(outsider, func(f *Facts) { f.CreatorClaims[0].Session = outsider }),
			self:  self,
			want:  Decision{Allowed: true, SelfCloseException: true, Conflict: "frontmatter says created_by ses_outs0001 but the ledger says ses_lead0001"},
		},
		{name: "no session asking", mode: Balanced, facts: issueFacts("", nobodyImplemented), self: self, want: refusedSomehow},
		// A close as done is a sign-off: whoever did the work, started or
		// not, goes through the table.
		{
			name:  "nobody started, the session bound to it closes as done",
			mode:  Balanced,
			facts: issueFacts(worker, nobodyImplemented, boundWorker),
			want:  Decision{Refusal: `ses_work0001 worked on td-abc123 (it was bound to it or held its claim); a different person or agent must close it, or pass --self-close-exception "why" to close it anyway (audited)`},
		},
		{
			name:  "nobody started, the agent bound to it closes as done, no way round",
			mode:  Balanced,
			facts: issueFacts(worker, nobodyImplemented, boundWorker, func(f *Facts) { f.ReviewerRole = domain.RoleAgent; f.ReviewerAgent = "primary" }),
			want:  Decision{Refusal: `ses_work0001 worked on td-abc123 (it was bound to it or held its claim); a different person or agent must close it`},
		},
		{name: "nobody started, the bound session's self-close exception", mode: Balanced, facts: issueFacts(worker, nobodyImplemented, boundWorker), self: self, want: selfCloseResult},
		{name: "nobody started, someone else was bound: an uninvolved session closes as done", mode: Balanced, facts: issueFacts(outsider, nobodyImplemented, boundWorker), want: allowed},
		{name: "nobody started, someone else was bound: the creator closes with a reason", mode: Balanced, facts: issueFacts(lead, nobodyImplemented, boundWorker), reason: why, want: creatorAllowed},
		{
			name:  "another session of the bound actor closes as done",
			mode:  Balanced,
			facts: issueFacts(outsider, nobodyImplemented, boundWorker, func(f *Facts) { f.ReviewerSessions = []string{worker} }),
			want:  Decision{Refusal: `ses_work0001 worked on td-abc123 (it was bound to it or held its claim), and you act for the same actor too; a different person or agent must close it, or pass --self-close-exception "why" to close it anyway (audited)`},
		},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			checkDecision(t, Close(rulesOf(row.mode), row.facts, true, row.reason, row.self), row.want)
		})
	}
	// Closing as wontfix or a duplicate signs nothing off: an issue nobody
	// started may be closed so by anyone, the session bound to it too.
	checkDecision(t, Close(rulesOf(Balanced), issueFacts(worker, nobodyImplemented, boundWorker), false, "", ""), allowed)
	// Approving is signing off too: the bound session may not.
	checkDecision(t, Approval(rulesOf(Balanced), issueFacts(worker, nobodyImplemented, boundWorker), ""),
		Decision{Refusal: `ses_work0001 worked on td-abc123 (it was bound to it or held its claim); a different person or agent must approve it`})
}

// boundWorker makes the worker a session bound to the issue that never
// started it.
func boundWorker(f *Facts) { f.Workers = []string{worker} }

func TestReviewable(t *testing.T) {
	rows := []struct {
		name            string
		mode            Mode
		facts           Facts
		ok, needsReason bool
	}{
		{name: "creator under balanced", mode: Balanced, facts: issueFacts(lead), ok: true, needsReason: true},
		{name: "creator under strict", mode: Strict, facts: issueFacts(lead)},
		{name: "implementer", mode: Balanced, facts: issueFacts(worker)},
		{name: "commenter", mode: Balanced, facts: issueFacts(commenter)},
		{name: "uninvolved", mode: Strict, facts: issueFacts(outsider), ok: true},
		{name: "minor, implementer", mode: Strict, facts: issueFacts(worker, func(f *Facts) { f.Minor = true }), ok: true},
		{name: "minor by the implementer's own hand", mode: Balanced, facts: issueFacts(worker, func(f *Facts) { f.Minor = true; f.MinorMarkedBy = []string{worker} })},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			ok, needsReason := Reviewable(rulesOf(row.mode), row.facts)
			if ok != row.ok || needsReason != row.needsReason {
				t.Errorf("Reviewable = (%v, %v); want (%v, %v)", ok, needsReason, row.ok, row.needsReason)
			}
		})
	}
}

func TestModeFor(t *testing.T) {
	if ModeFor(true) != Balanced || ModeFor(false) != Strict {
		t.Fatalf("ModeFor(true) = %q, ModeFor(false) = %q", ModeFor(true), ModeFor(false))
	}
}

func TestImplementerConflict(t *testing.T) {
	for _, tc := range []struct {
		name                string
		frontmatter, ledger string
		want                string
	}{
		{"agree", "ses_w", "ses_w", ""},
		{"the ledger is silent", "ses_w", "", ""},
		{"field names another session", "ses_x", "ses_w", "frontmatter says implementer ses_x but the ledger says ses_w started the work"},
		{"field emptied by hand", "", "ses_w", "frontmatter has no implementer but the ledger says ses_w started the work"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Facts{IssueID: "td-abc123", Reviewer: "ses_r", Implementer: tc.frontmatter, LedgerImplementer: tc.ledger}
			if got := implementerConflict(f); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if d := Approval(rulesOf(Balanced), f, "ok"); d.Conflict != tc.want {
				t.Errorf("Approval conflict %q, want %q", d.Conflict, tc.want)
			}
		})
	}
}

// TestActorMatrix: involvement is judged per actor. The reviewer's other
// sessions (the same person in another clone or worktree, or one agent
// path's other conversations) count as the reviewer, in every mode.
func TestActorMatrix(t *testing.T) {
	const (
		worker2 = "ses_work0002" // the worker's actor, in another worktree
		lead2   = "ses_lead0002" // the lead, in another clone
		cmnt2   = "ses_cmnt0002"
		why     = "read the diff"
	)
	asActorOf := func(sessions ...string) func(*Facts) {
		return func(f *Facts) { f.ReviewerSessions = sessions; f.ReviewerActor = bob }
	}
	rows := []struct {
		name   string
		mode   Mode
		facts  Facts
		reason string
		want   Decision
	}{
		{name: "a new session of the implementer's actor", mode: Balanced, facts: issueFacts(worker2, asActorOf(worker)), reason: why,
			want: Decision{Refusal: "ses_work0001 implements td-abc123, and you act for Bob <bob@example.com> too; a different person or agent must approve it"}},
		{name: "a new session of the implementer's actor, strict", mode: Strict, facts: issueFacts(worker2, asActorOf(worker)), reason: why,
			want: Decision{Refusal: "ses_work0001 implements td-abc123, and you act for Bob <bob@example.com> too; a different person or agent must approve it"}},
		{name: "the actor of a session that started the work once", mode: Balanced,
			facts:  issueFacts(worker2, asActorOf(worker), func(f *Facts) { f.Implementer = outsider; f.ImplementationHistory = []string{worker, outsider} }),
			reason: why,
			want:   Decision{Refusal: "ses_work0001 implemented td-abc123 (it started the work), and you act for Bob <bob@example.com> too; a different person or agent must approve it"}},
		{name: "the creator's actor in another clone gets the creator exception", mode: Balanced, facts: issueFacts(lead2, asActorOf(lead)), reason: why, want: creatorAllowed},
		{name: "the creator's actor in another clone, strict", mode: Strict, facts: issueFacts(lead2, asActorOf(lead)), reason: why, want: refusedSomehow},
		{name: "the actor of a commenter", mode: Balanced, facts: issueFacts(cmnt2, asActorOf(commenter)), reason: why,
			want: Decision{Refusal: "ses_cmnt0001 is involved in td-abc123 (it has ledger or commit history on it), and you act for Bob <bob@example.com> too; a different person or agent must approve it"}},
		{name: "another actor's session is not held to it", mode: Balanced, facts: issueFacts(outsider, func(f *Facts) { f.ReviewerSessions = []string{"ses_outs0002"} }), reason: why, want: allowed},
		{name: "a minor issue its actor marked minor in another session", mode: Balanced,
			facts: issueFacts(worker2, asActorOf(worker), func(f *Facts) { f.Minor = true; f.MinorMarkedBy = []string{worker} }), reason: why,
			want: refusedSomehow},
		{name: "a minor issue someone else marked minor", mode: Balanced,
			facts: issueFacts(worker2, asActorOf(worker), func(f *Facts) { f.Minor = true; f.MinorMarkedBy = []string{lead} }), reason: why,
			want: allowed},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			checkDecision(t, Approval(rulesOf(row.mode), row.facts, row.reason), row.want)
		})
	}
}

// A signer is who asks to sign an issue off in the sign-off matrix: a
// person listed in operators, a person not listed, a root agent and a
// subagent.
type signer struct {
	name  string
	role  domain.Role
	agent string
}

var signers = []signer{
	{"operator", domain.RoleOperator, ""},
	{"member", domain.RoleMember, ""},
	{"root agent", domain.RoleAgent, "lead"},
	{"subagent", domain.RoleAgent, "lead.subagents.ui"},
}

func (sg signer) apply(f *Facts) {
	f.ReviewerRole, f.ReviewerAgent = sg.role, sg.agent
	f.ReviewerActor = alice
	if sg.agent != "" {
		f.ReviewerActor = "agent " + sg.agent + " of " + alice
	}
}

// An outcome is the class of a decision the sign-off matrix expects.
type outcome string

const (
	outAllowed   outcome = "allowed"
	outCreator   outcome = "allowed as the creator exception"
	outReason    outcome = "refused for want of --reason"
	outTable     outcome = "refused by the review table"
	outSubagent  outcome = "refused: subagents never approve"
	outFlag      outcome = "refused: agent_approval is off"
	outCriteria  outcome = "refused: only an operator signs off criteria"
	outSelfClose outcome = "allowed as the self-close exception"
)

// classify names the class of d, by the refusal's words for the rules
// beyond the table.
func classify(d Decision) outcome {
	switch {
	case d.Allowed && d.CreatorException:
		return outCreator
	case d.Allowed && d.SelfCloseException:
		return outSelfClose
	case d.Allowed:
		return outAllowed
	case d.ReasonRequired:
		return outReason
	case strings.Contains(d.Refusal, "subagents never"):
		return outSubagent
	case strings.Contains(d.Refusal, "agent_approval is off"):
		return outFlag
	case strings.Contains(d.Refusal, "only an operator signs them off"):
		return outCriteria
	}
	return outTable
}

// tableRows are the rows of section 4's review table, each with what the
// table alone says under strict and balanced: the same for every actor.
var tableRows = []struct {
	name             string
	reviewer         string
	edit             func(*Facts)
	reason           string
	strict, balanced outcome
}{
	{name: "the implementer", reviewer: worker, reason: "ok", strict: outTable, balanced: outTable},
	{name: "a session that started and unstarted it", reviewer: outsider, edit: func(f *Facts) { f.ImplementationHistory = []string{outsider, worker} },
		reason: "ok", strict: outTable, balanced: outTable},
	{name: "the creator with --reason", reviewer: lead, reason: "read the diff", strict: outTable, balanced: outCreator},
	{name: "the creator without --reason", reviewer: lead, strict: outTable, balanced: outReason},
	{name: "another involved session", reviewer: commenter, reason: "ok", strict: outTable, balanced: outTable},
	{name: "an uninvolved session", reviewer: outsider, strict: outAllowed, balanced: outAllowed},
	{name: "the implementer of a minor issue", reviewer: worker, edit: func(f *Facts) { f.Minor = true }, strict: outAllowed, balanced: outAllowed},
	{name: "the session that marked it minor", reviewer: worker, edit: func(f *Facts) { f.Minor = true; f.MinorMarkedBy = []string{worker} },
		strict: outTable, balanced: outTable},
}

// TestSignOffMatrix: the review table applies to people and agents alike;
// then a subagent never approves, agent_approval off refuses every agent,
// and an issue with acceptance criteria needs an operator. Every row of
// the table, for every signer, both modes, both settings of
// agent_approval, with and without criteria.
func TestSignOffMatrix(t *testing.T) {
	for _, row := range tableRows {
		for _, mode := range []Mode{Strict, Balanced} {
			for _, sg := range signers {
				for _, agentApproval := range []bool{true, false} {
					for _, criteria := range []int{0, 2} {
						name := fmt.Sprintf("%s/%s/%s/agent_approval=%t/criteria=%d", row.name, mode, sg.name, agentApproval, criteria)
						t.Run(name, func(t *testing.T) {
							f := issueFacts(row.reviewer, sg.apply, func(f *Facts) { f.Criteria = criteria })
							if row.edit != nil {
								row.edit(&f)
							}
							table := row.balanced
							if mode == Strict {
								table = row.strict
							}
							want := table
							switch {
							case sg.agent == "lead.subagents.ui":
								want = outSubagent
							case table == outTable:
							case sg.role == domain.RoleAgent && !agentApproval:
								want = outFlag
							case criteria > 0 && sg.role != domain.RoleOperator:
								want = outCriteria
							}
							d := Approval(Rules{Mode: mode, AgentApproval: agentApproval}, f, row.reason)
							if got := classify(d); got != want {
								t.Errorf("got %s (%+v), want %s", got, d, want)
							}
							checkDecision(t, d, d) // one sentence, allowed without a refusal
							if want == outCreator && d.CreatorException != true {
								t.Errorf("the creator exception is not marked for the audit")
							}
						})
					}
				}
			}
		}
	}
}

// TestSignOffRefusals: the sentences of the rules beyond the table, with
// the reviewer named as people read it.
func TestSignOffRefusals(t *testing.T) {
	named := func(f *Facts) { f.ReviewerName = "Alice" }
	agentNamed := func(f *Facts) { f.ReviewerName = "lead agent of Alice" }
	withCriteria := func(f *Facts) { f.Criteria = 1 }
	rows := []struct {
		name  string
		rules Rules
		facts Facts
		want  string
	}{
		{name: "a root agent on an issue with criteria", rules: rulesOf(Balanced),
			facts: issueFacts(outsider, signers[2].apply, agentNamed, withCriteria),
			want:  "td-abc123 has acceptance criteria, the operator's definition of done, and only an operator signs them off; lead agent of Alice (ses_outs0001) is an agent, so an operator approves it (td review td-abc123 asks for the sign-off)"},
		{name: "a member on an issue with criteria", rules: rulesOf(Balanced),
			facts: issueFacts(outsider, signers[1].apply, named, withCriteria),
			want:  "td-abc123 has acceptance criteria, the operator's definition of done, and only an operator signs them off; Alice (ses_outs0001) is a member (a person not listed in operators), so an operator approves it (td review td-abc123 asks for the sign-off)"},
		{name: "a member whose session td starts now", rules: rulesOf(Balanced),
			facts: issueFacts(outsider, signers[1].apply, named, withCriteria, func(f *Facts) { f.ReviewerNew = true }),
			want:  "td-abc123 has acceptance criteria, the operator's definition of done, and only an operator signs them off; Alice is a member (a person not listed in operators), so an operator approves it (td review td-abc123 asks for the sign-off)"},
		{name: "a root agent with agent_approval off", rules: Rules{Mode: Balanced},
			facts: issueFacts(outsider, signers[2].apply, agentNamed),
			want:  "lead agent of Alice (ses_outs0001) is an agent, and agent_approval is off: this team wants a person for every approval; a person approves it (td review td-abc123 asks for the sign-off)"},
		{name: "a subagent", rules: rulesOf(Balanced),
			facts: issueFacts(outsider, signers[3].apply, func(f *Facts) { f.ReviewerName = "lead.subagents.ui agent of Alice" }),
			want:  "lead.subagents.ui agent of Alice (ses_outs0001) is a subagent, and subagents never approve or change issues; its root agent lead or a person decides the review"},
		{name: "the creator's other session, named by its person", rules: rulesOf(Balanced),
			facts: issueFacts(outsider, named, func(f *Facts) { f.ReviewerSessions = []string{lead}; f.ReviewerNew = true }),
			want:  `Alice (ses_lead0001) created td-abc123: the creator approves it only with a reason, td approve td-abc123 --reason "..."`},
		{name: "the implementer's other session never names the new one", rules: rulesOf(Balanced),
			facts: issueFacts(outsider, named, func(f *Facts) { f.ReviewerSessions = []string{worker}; f.ReviewerNew = true; f.ReviewerActor = alice }),
			want:  "Alice (ses_work0001) implements td-abc123, and you act for Alice <alice@example.com> too; a different person or agent must approve it"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			d := Approval(row.rules, row.facts, "")
			if d.Refusal != row.want {
				t.Errorf("got  %q\nwant %q", d.Refusal, row.want)
			}
			checkDecision(t, d, d)
		})
	}
}

// TestCloseSignOff: a close as done is a sign-off, so the rules beyond
// the table hold for it too, and no self-close exception passes them; a
// close as wontfix or duplicate is not, and an issue nobody implemented
// may be closed so by anyone but a subagent.
func TestCloseSignOff(t *testing.T) {
	nobody := func(f *Facts) { f.Implementer, f.ImplementationHistory = "", nil }
	withCriteria := func(f *Facts) { f.Criteria = 1 }
	off := Rules{Mode: Balanced}
	rows := []struct {
		name      string
		rules     Rules
		facts     Facts
		asDone    bool
		selfClose string
		want      outcome
	}{
		{name: "nobody implemented, criteria, an agent closes as done", rules: rulesOf(Balanced), facts: issueFacts(lead, signers[2].apply, nobody, withCriteria), asDone: true, want: outCriteria},
		{name: "nobody implemented, criteria, a member closes as done", rules: rulesOf(Balanced), facts: issueFacts(lead, signers[1].apply, nobody, withCriteria), asDone: true, want: outCriteria},
		{name: "nobody implemented, criteria, the operator closes as done", rules: rulesOf(Balanced), facts: issueFacts(lead, nobody, withCriteria), asDone: true, want: outAllowed},
		{name: "nobody implemented, criteria, an agent closes as wontfix", rules: rulesOf(Balanced), facts: issueFacts(lead, signers[2].apply, nobody, withCriteria), want: outAllowed},
		{name: "nobody implemented, agent_approval off, an agent closes as done", rules: off, facts: issueFacts(lead, signers[2].apply, nobody), asDone: true, want: outAllowed},
		{name: "nobody implemented, a subagent closes", rules: rulesOf(Balanced), facts: issueFacts(lead, signers[3].apply, nobody), want: outSubagent},
		{name: "implemented, an uninvolved agent closes as done", rules: rulesOf(Balanced), facts: issueFacts(outsider, signers[2].apply), asDone: true, want: outAllowed},
		{name: "implemented, agent_approval off, an agent closes as done", rules: off, facts: issueFacts(outsider, signers[2].apply), asDone: true, want: outFlag},
		{name: "implemented, agent_approval off, an agent closes as wontfix", rules: off, facts: issueFacts(outsider, signers[2].apply), want: outAllowed},
		{name: "implemented, criteria, a member closes as done", rules: rulesOf(Balanced), facts: issueFacts(outsider, signers[1].apply, withCriteria), asDone: true, want: outCriteria},
		{name: "implemented, criteria, a member closes as wontfix", rules: rulesOf(Balanced), facts: issueFacts(outsider, signers[1].apply, withCriteria), want: outAllowed},
		{name: "the implementing agent's self-close exception, no criteria", rules: rulesOf(Balanced), facts: issueFacts(worker, signers[2].apply), asDone: true, selfClose: "urgent", want: outSelfClose},
		{name: "the implementing agent's self-close exception, criteria", rules: rulesOf(Balanced), facts: issueFacts(worker, signers[2].apply, withCriteria), asDone: true, selfClose: "urgent", want: outCriteria},
		{name: "the implementing member's self-close exception, criteria", rules: rulesOf(Balanced), facts: issueFacts(worker, signers[1].apply, withCriteria), asDone: true, selfClose: "urgent", want: outCriteria},
		{name: "the implementing member, criteria, no exception asked", rules: rulesOf(Balanced), facts: issueFacts(worker, signers[1].apply, withCriteria), asDone: true, want: outTable},
		{name: "the implementing member's self-close exception, no criteria", rules: rulesOf(Balanced), facts: issueFacts(worker, signers[1].apply), asDone: true, selfClose: "urgent", want: outSelfClose},
		{name: "the implementing operator's self-close exception, criteria", rules: rulesOf(Balanced), facts: issueFacts(worker, withCriteria), asDone: true, selfClose: "urgent", want: outSelfClose},
		{name: "the implementing agent's self-close exception, agent_approval off", rules: off, facts: issueFacts(worker, signers[2].apply), asDone: true, selfClose: "urgent", want: outFlag},
		{name: "the implementing agent's self-close exception as wontfix, agent_approval off", rules: off, facts: issueFacts(worker, signers[2].apply), selfClose: "urgent", want: outSelfClose},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			d := Close(row.rules, row.facts, row.asDone, "", row.selfClose)
			if got := classify(d); got != row.want {
				t.Errorf("got %s (%+v), want %s", got, d, row.want)
			}
			checkDecision(t, d, d)
		})
	}
	// A member the table refuses is offered the self-close exception,
	// unless a rule it cannot pass refuses it too.
	d := Close(rulesOf(Balanced), issueFacts(worker, signers[1].apply), true, "", "")
	if !strings.Contains(d.Refusal, "--self-close-exception") {
		t.Errorf("a member was not offered the self-close exception: %q", d.Refusal)
	}
	d = Close(rulesOf(Balanced), issueFacts(worker, signers[1].apply, withCriteria), true, "", "")
	if strings.Contains(d.Refusal, "--self-close-exception") {
		t.Errorf("a member was offered the self-close exception on an issue with criteria: %q", d.Refusal)
	}
}

// TestLateOperator: a person's session first seen after an agent of the
// same identity started the work never approves it, whatever the other
// rules say; the refusal names the person's earlier session when there is
// one. Closing is not an approval, and the rule is not the agent's.
func TestLateOperator(t *testing.T) {
	const agent = "ses_agnt0001"
	late := func(earlier string) func(*Facts) {
		return func(f *Facts) { f.LateAfter, f.LateEarlier = agent, earlier }
	}
	// The outsider is another session of the lead's identity here.
	asLead := func(f *Facts) { f.ReviewerSessions = []string{lead} }
	plain := "ses_outs0001 is a person's session first seen after ses_agnt0001, an agent of the same identity (Alice <alice@example.com>), started the work; a person signs off from a session that predates the work, or another operator approves"
	withEarlier := "ses_outs0001 is a person's session first seen after ses_agnt0001, an agent of the same identity (Alice <alice@example.com>), started the work; a person signs off from a session that predates the work (td approve td-abc123 --session ses_lead0001), or another operator approves"
	rows := []struct {
		name   string
		facts  Facts
		reason string
		want   Decision
	}{
		{name: "uninvolved, not late", facts: issueFacts(outsider), want: allowed},
		{name: "uninvolved, late", facts: issueFacts(outsider, late("")), want: Decision{Refusal: plain}},
		{name: "late, with an earlier session", facts: issueFacts(outsider, late(lead)), want: Decision{Refusal: withEarlier}},
		{name: "creator's actor with a reason, late", facts: issueFacts(outsider, asLead, late(lead)), reason: "read the diff", want: Decision{Refusal: withEarlier}},
		{name: "creator's actor without a reason, late", facts: issueFacts(outsider, asLead, late("")), want: Decision{Refusal: plain}},
		{name: "creator's actor with a reason, not late", facts: issueFacts(outsider, asLead), reason: "read the diff", want: creatorAllowed},
		{name: "implementer, late: its own refusal first", facts: issueFacts(worker, late("")), want: refusedSomehow},
		{name: "minor, late", facts: issueFacts(outsider, late(""), func(f *Facts) { f.Minor = true }), want: Decision{Refusal: plain}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			d := Approval(rulesOf(Balanced), r.facts, r.reason)
			checkDecision(t, d, r.want)
			if r.name == "implementer, late: its own refusal first" && strings.Contains(d.Refusal, "first seen") {
				t.Errorf("the implementer heard the late rule, not its own: %q", d.Refusal)
			}
		})
	}
	// A close is not a sign-off: the rule is the approval's.
	checkDecision(t, Close(rulesOf(Balanced), issueFacts(outsider, late("")), true, "", ""), allowed)
	// The rule is a person's: an agent is judged as an agent.
	f := issueFacts(outsider, late(""), func(f *Facts) { f.ReviewerAgent, f.ReviewerRole = "primary", domain.RoleAgent })
	checkDecision(t, Approval(rulesOf(Balanced), f, ""), allowed)
	// A member's late session is held to it as an operator's is.
	f = issueFacts(outsider, late(""), func(f *Facts) { f.ReviewerRole = domain.RoleMember })
	checkDecision(t, Approval(rulesOf(Balanced), f, ""), Decision{Refusal: plain})
}
