package todos

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/claims"
)

// Todo operations, as the todo command names them.
const (
	TodoView    = "view"
	TodoSet     = "set"
	TodoAdd     = "add"
	TodoStart   = "start"
	TodoDone    = "done"
	TodoDrop    = "drop"
	TodoBlock   = "block"
	TodoUnblock = "unblock"
	TodoNote    = "note"
)

// TodoRequest is one todo operation on an issue's checklist.
type TodoRequest struct {
	// Op is one of the Todo* operations.
	Op string
	// Issue names the issue for operators (--issue); empty means the
	// session's bound issue.
	Issue string
	// Targets address items by their text (start, done, drop, block,
	// unblock, note), applied in order.
	Targets []string
	// Kind and Phase restrict addressing, and place new items.
	Kind  domain.TodoKind
	Phase string
	// Items are the texts for set and add.
	Items []string
	// Phases is phased input for set (takes precedence over Items).
	Phases []markdown.PhaseItems
	// Text is a note's text; Reason is why an item is blocked.
	Text, Reason string
}

// checkText refuses a request whose new text (a todo, a phase, a note, a
// reason) holds a control character. Targets only address items, but a
// control character in one is refused too, before it can be echoed back
// in a message.
func (r TodoRequest) checkText() error {
	check := func(field string, texts ...string) error {
		for _, t := range texts {
			if err := policy.CheckText(field, t); err != nil {
				return err
			}
		}
		return nil
	}
	if err := check("todo text", r.Items...); err != nil {
		return err
	}
	if err := check("todo text", r.Targets...); err != nil {
		return err
	}
	for _, p := range r.Phases {
		if err := check("phase", p.Name); err != nil {
			return err
		}
		if err := check("todo text", p.Texts...); err != nil {
			return err
		}
	}
	if err := check("phase", r.Phase); err != nil {
		return err
	}
	if err := check("note", r.Text); err != nil {
		return err
	}
	return check("reason", r.Reason)
}

// TodoResult is the checklist after an operation.
type TodoResult struct {
	Issue *repo.Issue
	Items []markdown.Item
	// Rendered is the list as the file shows it.
	Rendered string
	// Changed is false when the operation left the file as it was.
	Changed bool
	// Touched is the index of the item the operation addressed, -1 if none.
	Touched int
	// Fixes are the invariant repairs made after the operation, for
	// example a second in-progress item written by hand.
	Fixes []markdown.Fix
	// CriteriaMet is true when this operation completed the last open
	// acceptance criterion.
	CriteriaMet bool
	// InProgress counts the items in progress, for view to report a file
	// that breaks the one-in-progress rule.
	InProgress int
	// ProposedCriteria is true when an agent added acceptance criteria:
	// proposals the operator ratifies at sign-off.
	ProposedCriteria bool
	// Proposals are the subagent proposals waiting for a decision; view
	// fills it, other operations leave it nil.
	Proposals []Proposal
	// Stalls are the session's stall warnings after a mutation.
	Stalls []policy.Stall
}

// todoIssue finds the issue a todo operation acts on: the bound issue, or
// --issue for operators.
func todoIssue(s *repo.Store, se *repo.Session, ref string, read bool) (string, error) {
	if ref == "" {
		id, err := s.BoundIssueID(se)
		if err != nil {
			return "", err
		}
		if _, err := os.Lstat(s.IssuePath(id)); errors.Is(err, fs.ErrNotExist) {
			return "", repo.Errorf(repo.CodeNotFound, "session %s is bound to %s, which no longer exists; td session unbind, or bind another issue", se.ID, id)
		}
		return id, nil
	}
	if !read && s.EffectiveRole(se) == domain.RoleAgent {
		return "", repo.Errorf(repo.CodeRefused, "only a person may name an issue with --issue; an agent works on the issue its session is bound to (td todo view)")
	}
	return s.ResolveID(ref)
}

// Todo runs one todo operation and returns the whole list after it.
// Mutations keep the invariants of spec section 6: at most one item in
// progress (the first kept), the first pending step promoted when none is,
// blocked items never promoted, nothing deleted, notes only appended
// except a "blocked: …" note, which goes when its todo stops being
// blocked.
func Apply(s *repo.Store, se *repo.Session, req TodoRequest) (*TodoResult, error) {
	if req.Op != TodoView {
		// Before the issue: a subagent has none to find, and is told to
		// propose instead.
		if err := policy.MayMutate(se.Agent); err != nil {
			return nil, err
		}
	}
	id, err := todoIssue(s, se, req.Issue, req.Op == TodoView)
	if err != nil {
		return nil, err
	}
	if req.Kind != "" && req.Kind != domain.KindStep && req.Kind != domain.KindCriterion {
		return nil, repo.Errorf(repo.CodeInvalid, "kind %q must be step or criterion", req.Kind)
	}
	if err := req.checkText(); err != nil {
		return nil, err
	}
	if req.Op == TodoView {
		is, err := s.ReadIssueFile(id)
		if err != nil {
			return nil, err
		}
		res := todoResult(is, is.Checklist(), false, -1)
		if res.Proposals, err = PendingProposals(s, id); err != nil {
			return nil, err
		}
		return res, nil
	}
	role := domain.Role(s.EffectiveRole(se))
	var res *TodoResult
	progress := false
	err = s.Update(func(tx *repo.Tx) error {
		is, err := s.ReadIssueFile(id)
		if err != nil {
			return err
		}
		cl := is.Checklist()
		if len(is.Doc.Body) == 0 && (req.Op == TodoAdd || req.Op == TodoSet) {
			// A body td creates starts after one blank line, as in a new
			// issue file with a description.
			cl = markdown.ParseChecklist([]byte(is.Doc.EOL()))
		}
		before := cl.Items()
		var ledger []audit.Entry
		touched, criterionDone := -1, false
		targets := req.Targets
		if len(targets) == 0 {
			targets = []string{""}
		}
		for _, t := range targets {
			i, entries, err := applyTodo(cl, req, t, role)
			if err != nil {
				return err
			}
			touched = i
			ledger = append(ledger, entries...)
			if i >= 0 {
				done := cl.Items()[i]
				if done.Kind == domain.KindCriterion && done.Status == domain.TodoCompleted && before[i].Status != domain.TodoCompleted {
					criterionDone = true
				}
			}
		}
		fixes := cl.Normalize()
		after := cl.Items()
		changed := string(cl.Bytes()) != string(is.Doc.Body)
		res = todoResult(is, cl, changed, touched)
		res.Fixes = fixes
		res.ProposedCriteria = req.Op == TodoAdd && req.Kind == domain.KindCriterion && role != domain.RoleOperator
		res.CriteriaMet = criterionDone && len(markdown.OpenCriteria(after)) == 0
		progress = markdown.CompletedCount(after) > markdown.CompletedCount(before) || (req.Op == TodoAdd && len(after) > len(before))
		if !changed {
			return nil
		}
		for _, e := range ledger {
			if e.Action != audit.ActionCriterionCompleted {
				continue
			}
			// What td check's claims rule would refuse in the pull request
			// is refused here, by the same decision.
			what := fmt.Sprintf("complete the criterion %q of %s", e.Details["text"], id)
			if err := claims.CheckWork(s, se, id, policy.WorkCriterion, role == domain.RoleOperator, what); err != nil {
				return err
			}
		}
		is.Doc.Body = cl.Bytes()
		if err := s.WriteIssueFile(tx, is); err != nil {
			return err
		}
		res.Issue = is
		for _, e := range ledger {
			e.TS, e.Session = is.UpdatedAt, se.ID
			if err := s.AppendLedger(tx, id, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A session that keeps changing its list without finishing anything is
	// stalling; the count is local and a failure to keep it only a warning.
	if res.Stalls, err = s.NoteTodoChange(se, progress); err != nil {
		s.Warnf("stall count not kept: %v", err)
	}
	return res, nil
}

func todoResult(is *repo.Issue, cl *markdown.Checklist, changed bool, touched int) *TodoResult {
	items := cl.Items()
	n := 0
	for _, it := range items {
		if it.Status == domain.TodoInProgress {
			n++
		}
	}
	return &TodoResult{Issue: is, Items: items, Rendered: cl.Render(), Changed: changed, Touched: touched, InProgress: n}
}

// applyTodo performs one operation on the checklist (target: the text
// addressing the item, for operations that need one) and returns the index
// of the addressed item (-1 if none) and the ledger entries it earns:
// criteria changes are significant, routine step churn is not.
func applyTodo(cl *markdown.Checklist, req TodoRequest, target string, role domain.Role) (int, []audit.Entry, error) {
	switch req.Op {
	case TodoSet:
		if req.Kind == domain.KindCriterion {
			return -1, nil, repo.Errorf(repo.CodeInvalid, "set replaces the steps only; add acceptance criteria with td todo add --kind criterion")
		}
		phases := req.Phases
		if len(phases) == 0 {
			phases = []markdown.PhaseItems{{Name: req.Phase, Texts: req.Items}}
		}
		if countTexts(phases) == 0 {
			return -1, nil, repo.Errorf(repo.CodeInvalid, "set needs the new steps: td todo set \"first step\" \"second step\" (or --file with a checklist)")
		}
		return -1, nil, todoError(cl.SetSteps(phases))
	case TodoAdd:
		kind := req.Kind
		if kind == "" {
			kind = domain.KindStep
		}
		if len(req.Items) == 0 {
			return -1, nil, repo.Errorf(repo.CodeInvalid, "add needs the text of at least one item")
		}
		phase := req.Phase
		if kind == domain.KindCriterion {
			if phase != "" {
				return -1, nil, repo.Errorf(repo.CodeInvalid, "acceptance criteria have no phases; drop --phase")
			}
		}
		if err := todoError(cl.Add(kind, phase, "", req.Items)); err != nil {
			return -1, nil, err
		}
		var ledger []audit.Entry
		if kind == domain.KindCriterion {
			for _, t := range req.Items {
				ledger = append(ledger, audit.Entry{Action: audit.ActionCriterionAdded, Details: map[string]any{"text": strings.TrimSpace(t), "by": string(role)}})
			}
		}
		return -1, ledger, nil
	}
	if strings.TrimSpace(target) == "" {
		return -1, nil, repo.Errorf(repo.CodeInvalid, "name the todo by its text: td todo %s \"part of its text\"", req.Op)
	}
	// Starting, completing, blocking or dropping acts on an open todo, so
	// a text that also names a finished one means the open one.
	open := req.Op == TodoStart || req.Op == TodoDone || req.Op == TodoDrop || req.Op == TodoBlock
	i, err := cl.Find(target, markdown.Filter{Kind: req.Kind, Phase: req.Phase, Open: open})
	if err != nil {
		return -1, nil, todoError(err)
	}
	it := cl.Items()[i]
	if req.Op == TodoNote {
		text := strings.TrimSpace(req.Text)
		if text == "" {
			return i, nil, repo.Errorf(repo.CodeInvalid, "the note is empty: td todo note \"%s\" \"what you learned\"", it.Text)
		}
		return i, nil, todoError(cl.AddNote(i, text))
	}
	to := map[string]domain.TodoStatus{
		TodoStart: domain.TodoInProgress, TodoDone: domain.TodoCompleted, TodoDrop: domain.TodoAbandoned,
		TodoBlock: domain.TodoBlocked, TodoUnblock: domain.TodoPending,
	}[req.Op]
	if to == "" {
		return -1, nil, repo.Errorf(repo.CodeInvalid, "unknown todo operation %q", req.Op)
	}
	if req.Op == TodoUnblock && it.Status != domain.TodoBlocked {
		return i, nil, repo.Errorf(repo.CodeRefused, "%q is %s, not blocked", it.Text, it.Status.Words())
	}
	if it.Status == to {
		return i, nil, nil
	}
	if err := policy.TodoChange(role, it.Kind, it.Status, to); err != nil {
		return i, nil, err
	}
	if to == domain.TodoInProgress {
		// The started item becomes the one in progress: any other falls
		// back to pending first, so Normalize keeps this one.
		for j, other := range cl.Items() {
			if j != i && other.Status == domain.TodoInProgress {
				if err := cl.SetStatus(j, domain.TodoPending); err != nil {
					return i, nil, todoError(err)
				}
			}
		}
	}
	if err := cl.SetStatus(i, to); err != nil {
		return i, nil, todoError(err)
	}
	if req.Op == TodoBlock {
		if r := strings.TrimSpace(req.Reason); r != "" {
			if err := cl.AddNote(i, policy.BlockedNote(r)); err != nil {
				return i, nil, todoError(err)
			}
		}
	}
	if policy.ClearsBlockedNotes(to) {
		// The reason it was blocked no longer holds; other notes stay.
		if _, err := cl.RemoveNotes(i, policy.IsBlockedNote); err != nil {
			return i, nil, todoError(err)
		}
	}
	var ledger []audit.Entry
	if it.Kind == domain.KindCriterion {
		switch {
		case to == domain.TodoCompleted:
			ledger = append(ledger, audit.Entry{Action: audit.ActionCriterionCompleted, Details: map[string]any{"text": it.Text}})
		case to == domain.TodoAbandoned:
			ledger = append(ledger, audit.Entry{Action: audit.ActionCriterionDropped, Details: map[string]any{"text": it.Text}})
		case it.Status == domain.TodoCompleted || it.Status == domain.TodoAbandoned:
			ledger = append(ledger, audit.Entry{Action: audit.ActionCriterionReopened, Details: map[string]any{"text": it.Text, "to": string(to)}})
		}
	}
	return i, ledger, nil
}

func countTexts(phases []markdown.PhaseItems) int {
	n := 0
	for _, p := range phases {
		n += len(p.Texts)
	}
	return n
}

// todoError gives checklist refusals td's error codes.
func todoError(err error) error {
	if err == nil {
		return nil
	}
	var ae *markdown.AddressError
	if errors.As(err, &ae) {
		code := repo.CodeNotFound
		if len(ae.Candidates) > 1 {
			code = repo.CodeAmbiguous
		}
		return &repo.Error{Code: code, Msg: ae.Error(), Err: err}
	}
	var e *repo.Error
	if errors.As(err, &e) {
		return err
	}
	return &repo.Error{Code: repo.CodeInvalid, Msg: err.Error(), Err: err}
}

// FmtResult names the issue files td fmt rewrote (or, with check, would
// rewrite) and the files it could not read.
type FmtResult struct {
	Changed []string
	Errors  []error
}

// Fmt rewrites the checklists of the given issues (every issue when refs
// is empty) into canonical form: list marker "-", lower-case x, notes as
// "  > ". Only item lines change; everything else keeps its bytes. With
// check nothing is written. Files td cannot read are reported, never
// rewritten.
func Fmt(s *repo.Store, se *repo.Session, refs []string, check bool) (*FmtResult, error) {
	if se != nil {
		if err := policy.MayMutate(se.Agent); err != nil && !check {
			return nil, err
		}
	}
	var ids []string
	if len(refs) == 0 {
		all, err := s.IssueIDs()
		if err != nil {
			return nil, err
		}
		ids = append(ids, all...)
	}
	for _, r := range refs {
		id, err := s.ResolveID(r)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	res := &FmtResult{}
	err := s.Update(func(tx *repo.Tx) error {
		for _, id := range ids {
			is, err := s.ReadIssueFile(id)
			if err != nil {
				if len(refs) > 0 {
					return err
				}
				res.Errors = append(res.Errors, err)
				continue
			}
			canon := is.Checklist().Canonical()
			if string(canon) == string(is.Doc.Body) {
				continue
			}
			res.Changed = append(res.Changed, id)
			if check {
				continue
			}
			is.Doc.Body = canon
			if err := tx.WriteFile(is.Doc.Bytes(), repo.IssuesDir, id+".md"); err != nil {
				return err
			}
		}
		return nil
	})
	return res, err
}
