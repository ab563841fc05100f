package harness

import (
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/claims"
	"github.com/tdproject/td/repo/sessions"
)

// Moment is a point of a harness conversation, in td's terms: what an
// adapter maps each of its harness's hook events onto.
type Moment string

// The moments td acts on.
const (
	// Start: the conversation starts, resumes, is cleared, compacted or
	// forked; Event.Source says which.
	Start Moment = "start"
	// Prompt: the user submitted a prompt; where the harness dropped the
	// compaction reminder, it comes here.
	Prompt Moment = "prompt"
	// PreTool: a tool call is about to run; td may deny it.
	PreTool Moment = "pre-tool"
	// PostTool: a tool call finished; Event.Failure says when it failed.
	PostTool Moment = "post-tool"
	// Edited: a file tool has already written Event.Tool.Paths, and the
	// harness lets no hook undo it (Cursor's afterFileEdit): a write td's
	// guard would have denied is recorded and reported instead.
	Edited Moment = "edited"
	// PreCompact and PostCompact: the harness summarises the conversation.
	PreCompact  Moment = "pre-compact"
	PostCompact Moment = "post-compact"
	// Stop: the agent's turn ended. End: the conversation ended: td
	// writes the session's handoff and ends its claim's lease.
	Stop Moment = "stop"
	End  Moment = "end"
	// Failed: the agent's turn ended on an error of the harness's own (an
	// API error, Claude Code's StopFailure): the error is recorded and the
	// claim's lease ends after a grace (FailureGrace), unless the
	// conversation goes on.
	Failed Moment = "failed"
	// SubagentStart and SubagentStop: a subagent of the conversation
	// starts (its own session starts, and its context is given) or stops.
	SubagentStart Moment = "subagent-start"
	SubagentStop  Moment = "subagent-stop"
	// Ignored: an event td reads and does nothing on, for a reason its
	// adapter gives (Gemini's Notification).
	Ignored Moment = "ignored"
)

// Sources of Start: why the conversation (re)started.
const (
	SourceStartup = "startup"
	SourceResume  = "resume"
	SourceClear   = "clear"
	SourceCompact = "compact"
	SourceFork    = "fork"
)

// ToolCall is what td reads of a tool call.
type ToolCall struct {
	// Name is the harness's name of the tool.
	Name string
	// Command is the shell command a shell tool runs; "" for other tools.
	Command string
	// Paths are the files a file tool writes, as the payload gives them
	// (absolute, or relative to Dir).
	Paths []string
	// Target is what the call acted on, for a failure's signature: the
	// command's first line, or the file relative to the work tree.
	Target string
}

// Event is one harness hook call, mapped by its adapter.
type Event struct {
	Moment Moment
	// Source is why a Start happened (SourceStartup...).
	Source       string
	Conversation Conversation
	// Subagent is the subagent a tool event comes from; nil for the
	// conversation's own agent.
	Subagent *Subagent
	Tool     ToolCall
	// Dir is the directory relative tool paths are read from ("" is the
	// work tree root).
	Dir string
	// Failure is the failed tool call a PostTool reports.
	Failure *ToolFailure
	// CompactionDropped says the harness ignores what its compaction hooks
	// print: the reminder is then kept for the next Prompt.
	CompactionDropped bool
	// ReinjectAtTool says the harness takes context after a tool call but
	// none at a prompt: a kept reminder then comes with the next PostTool.
	ReinjectAtTool bool
	// Model is the model the harness names for the call, "" when it names
	// none; it is recorded with the session (repo.Attribution).
	Model string
	// LastMessage is the agent's last message, where the harness sends it
	// (at a Stop, End, Failed or SubagentStop): the handoff quotes it.
	LastMessage string
	// Reason is why the conversation ended or the turn failed (End,
	// Failed), in the harness's words.
	Reason string
	// Yield says a Stop hands the conversation back for good, as far as
	// the harness can tell (Copilot's agentStop, where the cloud agent
	// sends no later event): the claim's lease ends after FailureGrace
	// unless the conversation goes on.
	Yield bool
	// Compaction, when not nil, says the harness announces compactions it
	// may not make (Gemini's PreCompress fires at every attempt): the
	// PreCompact keeps its Mark, and the session's next event asks
	// Happened before td counts a compaction.
	Compaction *CompactionCheck
}

// CompactionCheck tells whether a compaction the harness announced
// happened: Mark is what the adapter read of the harness's state at the
// announcement (a transcript's size), Happened reads the state again
// against a kept mark.
type CompactionCheck struct {
	Mark     string
	Happened func(mark string) bool
}

// FailureGrace is how long a claim stays after a turn that ended on the
// harness's own error (Failed): the person may retry, and the next prompt
// renews the lease; otherwise it ends then.
const FailureGrace = 15 * time.Minute

// Outcome is what Handle did, for the adapter to render in its
// harness's form.
type Outcome struct {
	// Session is the td session the event acted as; nil when it did
	// nothing (a tool call that worked, a Stop for a conversation td never
	// started).
	Session *repo.Session
	// Context is the block to add to the agent's context: the start
	// prefix, the resume block, the reminder after compaction (at Start,
	// or at the Prompt after a compaction the harness dropped).
	Context *sessions.Context
	// Stalls are the stall warnings a recorded tool failure set off.
	Stalls []policy.Stall
	// Deny is the one sentence a PreTool is denied with, "" to let it run.
	Deny string
	// Reported is the guard's sentence on an Edited write it could not
	// deny; it was recorded as a session error and waits as a notice.
	Reported string
	// Notices are what td tells the agent beside the context: the edits
	// td could not deny since the last tool call.
	Notices []string
}

// Handle maps one event onto the session lifecycle of the conversation's
// td session, and records with the session the harness, model and
// subagent the event names (repo.Attribution).
func Handle(s *repo.Store, ev Event) (*Outcome, error) {
	out, err := handle(s, ev)
	if err == nil && out.Session != nil {
		attribute(s, out.Session, ev)
	}
	return out, err
}

func handle(s *repo.Store, ev Event) (*Outcome, error) {
	out := &Outcome{}
	conv := ev.Conversation
	switch ev.Moment {
	case Start:
		res, ctx, err := Begin(s, conv, ev.Source)
		if err != nil {
			return out, err
		}
		out.Session, out.Context = res.Session, ctx
		if ev.Source == SourceCompact {
			clearReinjection(s, conv.Harness, res.Session)
		}
		clearLocal(s, markName(conv.Harness, res.Session.ID))
		return out, nil
	case Prompt:
		conv.Create = true
		res, err := Session(s, conv)
		if err != nil {
			return out, err
		}
		out.Session = res.Session
		if err := confirmCompaction(s, ev, res.Session); err != nil {
			return out, err
		}
		// A harness that takes no context at a prompt keeps the reminder
		// for its next tool call.
		if !ev.ReinjectAtTool && pendingReinjection(s, conv.Harness, res.Session) {
			ctx, err := sessions.ContextOf(s, res.Session, sessions.ContextCompact)
			if err != nil {
				return out, err
			}
			out.Context = ctx
			clearReinjection(s, conv.Harness, res.Session)
		}
		return out, Renew(s, res.Session)
	case PreTool:
		return out, preTool(s, ev, out)
	case PostTool:
		reinject := ev.ReinjectAtTool && ev.Subagent == nil
		if ev.Failure == nil && !reinject {
			return out, nil
		}
		conv.Create = ev.Failure != nil
		res, err := actor(s, conv, ev.Subagent)
		if err != nil || res == nil {
			return out, err
		}
		out.Session = res.Session
		if ev.Failure != nil {
			f := *ev.Failure
			f.Target = ev.Tool.Target
			rep, err := RecordToolFailure(s, res.Session, f)
			if err != nil {
				return out, err
			}
			out.Stalls = rep.Stalls
		}
		if reinject && pendingReinjection(s, conv.Harness, res.Session) {
			ctx, err := sessions.ContextOf(s, res.Session, sessions.ContextCompact)
			if err != nil {
				return out, err
			}
			out.Context = ctx
			clearReinjection(s, conv.Harness, res.Session)
		}
		if reinject {
			out.Notices = takeNotices(s, conv.Harness, res.Session)
		}
		return out, Renew(s, res.Session)
	case Edited:
		return out, edited(s, ev, out)
	case PreCompact, PostCompact:
		if ev.Moment == PostCompact && !ev.CompactionDropped {
			return out, nil // the harness gives the reminder at its own Start
		}
		conv.Create = true
		res, err := Session(s, conv)
		if err != nil {
			return out, err
		}
		out.Session = res.Session
		if ev.Compaction != nil {
			// Announced, maybe not made: the next event says.
			return out, s.WriteLocal(markName(conv.Harness, res.Session.ID), ev.Compaction.Mark)
		}
		if ev.Moment == PreCompact {
			if err := handoff(s, conv.Harness, res.Session, sessions.HandoffCompaction, ""); err != nil {
				return out, err
			}
		}
		if !ev.CompactionDropped {
			return out, nil // the harness gives the reminder at its own Start
		}
		return out, compacted(s, conv.Harness, res.Session)
	case Ignored:
		return out, nil
	case Stop, End, Failed:
		res, err := Session(s, conv)
		if err != nil || res == nil {
			return out, err // a conversation td never started has nothing to stop
		}
		out.Session = res.Session
		return out, stop(s, ev, res.Session)
	case SubagentStart, SubagentStop:
		return out, subagent(s, ev, out)
	}
	return out, invalid("td has no moment %q", ev.Moment)
}

// stop ends the session's turn (Stop), its turn on the harness's error
// (Failed) or its conversation (End). The agent's last message is kept
// for the handoff; at the end the handoff is written and the claim's
// lease ends, after a turn that failed it ends after FailureGrace.
func stop(s *repo.Store, ev Event, se *repo.Session) error {
	h := ev.Conversation.Harness
	msg := strings.TrimSpace(ev.LastMessage)
	if msg != "" && ev.Moment != End {
		if err := s.WriteLocal(messageName(h, se.ID), msg); err != nil {
			s.Warnf("could not keep the agent's last message: %v", err)
		}
	}
	if err := confirmCompaction(s, ev, se); err != nil {
		return err
	}
	switch ev.Moment {
	case Failed:
		why := strings.TrimSpace(ev.Reason)
		if why == "" {
			why = "unknown"
		}
		if _, err := sessions.RecordError(s, se, "the turn ended on the harness's error: "+why, ""); err != nil {
			return err
		}
	case End:
		if msg == "" {
			msg, _ = s.ReadLocal(messageName(h, se.ID))
		}
		if err := handoff(s, h, se, sessions.HandoffEnd, msg); err != nil {
			return err
		}
		clearLocal(s, messageName(h, se.ID))
	}
	if err := StopSession(s, se); err != nil {
		return err
	}
	switch ev.Moment {
	case End:
		endLease(s, se, s.Now())
	case Failed:
		endLease(s, se, s.Now().Add(FailureGrace))
	case Stop:
		if ev.Yield {
			endLease(s, se, s.Now().Add(FailureGrace))
		}
	}
	return nil
}

// endLease ends the session's claim's lease at until; a failure is a
// warning, the hook's answer matters more.
func endLease(s *repo.Store, se *repo.Session, until time.Time) {
	if _, err := claims.EndLease(s, se, until); err != nil {
		s.Warnf("the claim of %s kept its lease: %v", se.ID, err)
	}
}

// handoff writes the session's handoff at when (compaction or end) with
// the agent's last message, or the one its last turn kept.
func handoff(s *repo.Store, harness string, se *repo.Session, when, msg string) error {
	if msg == "" {
		msg, _ = s.ReadLocal(messageName(harness, se.ID))
	}
	_, err := sessions.RecordHandoff(s, se, when, msg)
	return err
}

// compacted counts a compaction the harness made and keeps the reminder
// for the next prompt (or tool call), once for a compaction reported
// before and after.
func compacted(s *repo.Store, harness string, se *repo.Session) error {
	if pendingReinjection(s, harness, se) {
		return nil
	}
	if _, err := sessions.Compact(s, se); err != nil {
		return err
	}
	return s.WriteLocal(reinjectName(harness, se.ID), "compact\n")
}

// confirmCompaction settles a compaction the harness announced and may
// not have made (Event.Compaction): at the session's next event, the
// adapter reads whether it happened; only then is it counted, its
// handoff written and its reminder kept.
func confirmCompaction(s *repo.Store, ev Event, se *repo.Session) error {
	if ev.Compaction == nil || ev.Compaction.Happened == nil {
		return nil
	}
	name := markName(ev.Conversation.Harness, se.ID)
	mark, err := s.ReadLocal(name)
	if err != nil || mark == "" {
		return nil
	}
	clearLocal(s, name)
	if !ev.Compaction.Happened(mark) {
		return nil
	}
	if err := handoff(s, ev.Conversation.Harness, se, sessions.HandoffCompaction, ""); err != nil {
		return err
	}
	return compacted(s, ev.Conversation.Harness, se)
}

// subagent starts a subagent's own session (SubagentStart), giving its
// context, or stops it (SubagentStop).
func subagent(s *repo.Store, ev Event, out *Outcome) error {
	if ev.Subagent == nil {
		return invalid("the hook payload names no subagent (agent_id)")
	}
	conv := ev.Conversation
	conv.Create = ev.Moment == SubagentStart
	res, err := actor(s, conv, ev.Subagent)
	if err != nil || res == nil {
		return err
	}
	se := res.Session
	out.Session = se
	if ev.Moment == SubagentStop {
		_, err := sessions.Stop(s, se)
		return err
	}
	if out.Context, err = sessions.ContextOf(s, se, sessions.ContextStart); err != nil {
		return err
	}
	return Renew(s, se)
}

// attribute records with the session the harness, model and subagent the
// event names, when they changed: the ledger entries the session writes
// name them. Losing it costs only that, so a failure is a warning.
func attribute(s *repo.Store, se *repo.Session, ev Event) {
	want := repo.Attribution{Harness: ev.Conversation.Harness, Model: strings.TrimSpace(ev.Model)}
	if ev.Subagent != nil && se.IsSubagent() {
		want.AgentID, want.AgentType = ev.Subagent.ID, ev.Subagent.Type
	}
	rt, err := s.Runtime(se.ID)
	if err != nil {
		return
	}
	have := rt.Via
	if want.Model == "" && have.Harness == want.Harness {
		want.Model = have.Model // a harness names the model at some events only
	}
	if want.AgentID == "" && have.Harness == want.Harness {
		want.AgentID, want.AgentType = have.AgentID, have.AgentType
	}
	if want == have {
		return
	}
	if err := s.UpdateRuntime(se.ID, func(rt *repo.Runtime) error {
		rt.Via = want
		return nil
	}); err != nil {
		s.Warnf("could not record the session's harness: %v", err)
	}
}

// markName is the file under .todos/local keeping the mark of a
// compaction the harness announced and td has not confirmed.
func markName(harness, session string) string {
	return "harness/" + harness + "/compaction/" + session
}

// messageName is the file under .todos/local keeping the agent's last
// message, for the handoff at the end of the conversation.
func messageName(harness, session string) string {
	return "harness/" + harness + "/message/" + session
}

// clearLocal empties a file under .todos/local when it holds anything.
func clearLocal(s *repo.Store, name string) {
	if v, err := s.ReadLocal(name); err != nil || v == "" {
		return
	}
	if err := s.WriteLocal(name, ""); err != nil {
		s.Warnf("could not clear %s: %v", name, err)
	}
}

// Begin maps a conversation's start onto the lifecycle: a new
// conversation starts a session; one resumed, cleared or forked under an
// id td has not seen continues the checkout's last harness session (a fork
// goes on with its parent's work, binding and all); a session seen before
// resumes, restarts (clear) or compacts. It returns the session and the
// context block to add.
func Begin(s *repo.Store, conv Conversation, source string) (*Result, *sessions.Context, error) {
	conv.Create = true
	conv.Adopt = source == SourceResume || source == SourceClear || source == SourceFork
	res, err := Session(s, conv)
	if err != nil {
		return nil, nil, err
	}
	se := res.Session
	rt, err := s.Runtime(se.ID)
	if err != nil {
		return nil, nil, err
	}
	fresh := res.How == Started || rt.State == "" || rt.State == repo.StateBeginning
	var ctx *sessions.Context
	switch {
	case source == SourceCompact && pendingReinjection(s, conv.Harness, se):
		// Counted at the harness's compaction hook already.
		ctx, err = sessions.ContextOf(s, se, sessions.ContextCompact)
	case source == SourceCompact:
		ctx, err = sessions.Compact(s, se)
	case fresh:
		ctx, err = sessions.ContextOf(s, se, sessions.ContextStart)
	case source == SourceClear:
		ctx, err = sessions.Restart(s, se)
	default: // startup of a conversation seen before, resume, fork
		ctx, err = sessions.Resume(s, se)
	}
	if err != nil {
		return nil, nil, err
	}
	return res, ctx, Renew(s, se)
}

// StopSession stops a harness session at the end of a turn or of the
// conversation; in batched auto mode the end of a turn is where a batch of
// td's writes ends, so it is committed.
func StopSession(s *repo.Store, se *repo.Session) error {
	if _, err := sessions.Stop(s, se); err != nil {
		return err
	}
	if err := Renew(s, se); err != nil {
		return err
	}
	if s.Config.Git.Mode == repo.GitModeAuto && s.Config.Git.Batch {
		_, err := s.CommitPending()
		return err
	}
	return nil
}

// Renew renews the session's claim on its bound issue as the session
// works (a heartbeat): at the start and end of a turn and on the tool
// calls that open the repository anyway. claims.RenewBound writes only
// once a quarter of the lease has passed. A renewal that fails is a
// warning: the hook's answer to the harness matters more.
func Renew(s *repo.Store, se *repo.Session) error {
	if _, err := claims.RenewBound(s, se); err != nil {
		s.Warnf("the claim of %s was not renewed: %v", se.ID, err)
	}
	return nil
}

// actor is the session a tool event acts as: the conversation's, or its
// subagent's own.
func actor(s *repo.Store, conv Conversation, sub *Subagent) (*Result, error) {
	res, err := Session(s, conv)
	if err != nil || res == nil || sub == nil {
		return res, err
	}
	return SubagentSession(s, conv, res.Session, *sub)
}

// preTool denies a tool call an agent may not make: a shell command that
// escalates (Escalation), a td approve the review policy refuses the
// agent or that would not act as the agent (ApprovalDenial), or a hand
// edit of a governance path by a project agent. A conversation td has not
// seen is an agent's too, with no session to approve as; one acting as a
// person's session is let through.
func preTool(s *repo.Store, ev Event, out *Outcome) error {
	conv := ev.Conversation
	deny := ""
	var asks []Approval
	paths := ev.Tool.Paths
	if cmd := ev.Tool.Command; cmd != "" {
		dir := ev.Dir
		if dir == "" {
			dir = s.Root
		}
		if deny = escalationIn(cmd, dir); deny == "" {
			asks = approvalsIn(cmd, dir)
		}
		// A shell command's writes are judged as a file tool's.
		paths = append(slices.Clone(paths), ShellWrites(cmd, dir)...)
	}
	if deny == "" && len(asks) == 0 && len(paths) == 0 {
		return nil
	}
	conv.Create = len(paths) > 0
	res, err := actor(s, conv, ev.Subagent)
	if err != nil {
		return err
	}
	if res == nil {
		if deny == "" && len(asks) > 0 {
			deny = "An agent approves only as its own session, and td has none for this conversation: let the harness's hooks start one (td hooks install), or leave the approval to a person."
		}
		out.Deny = deny
		return nil
	}
	out.Session = res.Session
	if !res.Session.IsAgent() {
		return nil
	}
	if deny == "" && len(asks) > 0 {
		if deny, err = ApprovalDenial(s, res.Session, asks); err != nil {
			return err
		}
	}
	if deny == "" {
		if deny, err = EditDenial(s, res.Session, ev.Dir, paths); err != nil {
			return err
		}
	}
	out.Deny = deny
	return Renew(s, res.Session)
}

// edited judges a write the harness has already made as preTool would
// have, for a project agent: a write td's guard refuses cannot be undone
// from the hook, so it is recorded as a session error (its signature the
// guard's sentence, so repeating it counts towards a stall) and kept as a
// notice for the next tool call that takes context. td's pre-commit hook
// still refuses the commit that carries it.
func edited(s *repo.Store, ev Event, out *Outcome) error {
	if len(ev.Tool.Paths) == 0 {
		return nil
	}
	conv := ev.Conversation
	conv.Create = true
	res, err := actor(s, conv, ev.Subagent)
	if err != nil || res == nil {
		return err
	}
	out.Session = res.Session
	if !res.Session.IsAgent() {
		return nil
	}
	deny, err := EditDenial(s, res.Session, ev.Dir, ev.Tool.Paths)
	if err != nil || deny == "" {
		return err
	}
	out.Reported = deny
	rep, err := sessions.RecordError(s, res.Session, "hand edit td could not deny: "+deny, "")
	if err != nil {
		return err
	}
	out.Stalls = rep.Stalls
	notice := "a hand edit td could not deny (the harness had already written it): " + deny + " Restore the file from git; td's pre-commit hook refuses a commit that carries it."
	if err := addNotice(s, conv.Harness, res.Session, notice); err != nil {
		return err
	}
	return Renew(s, res.Session)
}

// EditDenial returns the sentence a file tool's write to paths is denied
// with when the agent session se may not change one of them by hand (a
// project agent and td's governance files: ledgers, sessions, config), or
// "" when it may.
func EditDenial(s *repo.Store, se *repo.Session, dir string, paths []string) (string, error) {
	if dir == "" {
		dir = s.Root
	}
	rep, err := sessions.GuardPaths(s, se, dir, paths)
	if err != nil {
		return "", err
	}
	refused := rep.Refused()
	if len(refused) == 0 {
		return "", nil
	}
	c := refused[0] // the first refusal is the one the agent is told
	if c.Class == "meta" {
		return c.Path + " is td's own record, which a project agent changes only through td: " + recordCommand(c.Path) + ".", nil
	}
	return c.Path + ": " + c.Reason + ".", nil
}

// recordCommand names the td commands that write one of td's records, for
// the denial of a hand edit of it.
func recordCommand(rel string) string {
	base := filepath.Base(rel)
	switch {
	case strings.Contains(rel, ".todos/history/"):
		return "its ledger lines are written by the command that changes the issue (td edit, td todo, td comment, td review)"
	case strings.Contains(rel, ".todos/sessions/"):
		return "session records are written by td session start, td session bind and the other td session commands"
	case base == "config.yaml":
		return "the config is the operator's, changed with td feature set and td operator add (ask the operator)"
	case base == "anchors.md":
		return "add an anchor with td anchor add, remove one with td anchor rm"
	case base == "security_events.jsonl":
		return "td writes the security log itself when it audits an exception; nothing adds to it by hand"
	case base == ".gitattributes" || strings.Contains(rel, "hooks"):
		return "td init and td hooks install write it"
	}
	return "run the td command that does the job, or a meta session (td session start --agent PATH --category meta) if the change is governance work"
}

// reinjectName is the file under .todos/local marking that a session's
// compaction reminder waits for the next prompt.
func reinjectName(harness, session string) string {
	return "harness/" + harness + "/reinject/" + session
}

func pendingReinjection(s *repo.Store, harness string, se *repo.Session) bool {
	v, err := s.ReadLocal(reinjectName(harness, se.ID))
	return err == nil && v != ""
}

// noticeName is the file under .todos/local holding a session's notices
// for its next tool call, one a line.
func noticeName(harness, session string) string {
	return "harness/" + harness + "/notice/" + session
}

// addNotice keeps a notice for the session's next tool call, under the
// store lock (hooks run in parallel); the same notice twice is kept once.
func addNotice(s *repo.Store, harness string, se *repo.Session, notice string) error {
	return s.Locked(func() error {
		old, _ := s.ReadLocal(noticeName(harness, se.ID))
		for _, l := range strings.Split(old, "\n") {
			if l == notice {
				return nil
			}
		}
		return s.WriteLocal(noticeName(harness, se.ID), old+notice+"\n")
	})
}

// takeNotices returns the session's kept notices and clears them; a
// session with none costs one read and takes no lock.
func takeNotices(s *repo.Store, harness string, se *repo.Session) []string {
	if v, err := s.ReadLocal(noticeName(harness, se.ID)); err != nil || v == "" {
		return nil
	}
	var out []string
	err := s.Locked(func() error {
		v, err := s.ReadLocal(noticeName(harness, se.ID))
		if err != nil || v == "" {
			return nil
		}
		out = strings.Split(strings.TrimSuffix(v, "\n"), "\n")
		return s.WriteLocal(noticeName(harness, se.ID), "")
	})
	if err != nil {
		s.Warnf("could not take the session's notices: %v", err)
	}
	return out
}

func clearReinjection(s *repo.Store, harness string, se *repo.Session) {
	if !pendingReinjection(s, harness, se) {
		return
	}
	if err := s.WriteLocal(reinjectName(harness, se.ID), ""); err != nil {
		s.Warnf("could not clear the pending compaction reminder: %v", err)
	}
}

// ToolTarget reads what a tool call acted on from a command or a path:
// the first line of the command, else the path relative to the work tree
// root when it lies inside it.
func ToolTarget(root, command, path string) string {
	if cmd := strings.TrimSpace(command); cmd != "" {
		first, _, _ := strings.Cut(cmd, "\n")
		return strings.TrimSpace(first)
	}
	if path == "" {
		return ""
	}
	if filepath.IsAbs(path) {
		if r, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(r) {
			return filepath.ToSlash(r)
		}
	}
	return path
}
