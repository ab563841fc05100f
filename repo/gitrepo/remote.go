package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// The network: the one place td runs the git program. td sync exchanges
// claim references with a remote, and td start, td send, td reclaim and
// the commands that release a claim publish that one claim to it at once
// (repo/claims, publish.go); the remote may need the user's
// credentials: an ssh agent and ~/.ssh/config (hosts, keys, ProxyJump), a
// credential helper (the macOS keychain, Git Credential Manager, gh auth
// git-credential), url.<base>.insteadOf rules, http proxies and extra
// headers. go-git's transports handle an ssh agent and basic auth given
// in code, but not credential helpers, insteadOf or ssh_config, so a push
// that works with git would fail with td; and linking them would put
// their packages (ssh, TLS, HTTP) into every td start-up. Running git for
// these steps gives td exactly the user's access, and keeps every other
// command free of network code. Nothing else in td runs git.
//
// Every call takes a context: a command that publishes one claim gives
// git a deadline (a remote behind a firewall that drops packets would
// otherwise hold td start for minutes), and the error then says so.

// ErrNoGitProgram is wrapped by the errors Fetch and Push return when the
// git program is not installed.
var ErrNoGitProgram = errors.New("the git program is not installed")

// RemoteError is git failing to fetch from or push to a remote: the
// remote could not be reached, refused the credentials, or (for a push)
// rejected an update whose lease no longer held.
type RemoteError struct {
	Op     string // "fetch" or "push"
	Remote string
	Detail string // the last line git printed on standard error
	// Rejected lists the references a push was refused for, as git's
	// porcelain output named them.
	Rejected []string
}

func (e *RemoteError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("git %s %s failed", e.Op, e.Remote)
	}
	return fmt.Sprintf("git %s %s failed: %s", e.Op, e.Remote, e.Detail)
}

// ValidRemoteName reports whether name can be a remote's name in git's
// config: letters, digits, '-', '_' and '.', not starting with '-'.
func ValidRemoteName(name string) bool {
	if name == "" || name[0] == '-' || name == "." || name == ".." {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// RemoteURL is the URL configured for the remote, "" when no remote of
// that name is configured.
func (r *Repo) RemoteURL(name string) string {
	if !ValidRemoteName(name) {
		return ""
	}
	return r.ConfigValue("remote", name, "url")
}

// git runs the git program in the work tree with the user's environment,
// until ctx is done.
func (r *Repo) git(ctx context.Context, args ...string) (stdout, stderr []byte, err error) {
	path, err := exec.LookPath("git")
	if err != nil {
		return nil, nil, fmt.Errorf("%w: td runs it to reach the claims remote with your credentials", ErrNoGitProgram)
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = r.root
	// No prompt for a password on a terminal td's caller cannot see: a
	// credential helper or an agent answers, or the step fails and says so.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	// git's own children (ssh) may keep the pipes open once git is killed
	// at the deadline: stop waiting for them soon after.
	cmd.WaitDelay = time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if err != nil && ctx.Err() != nil {
		return out.Bytes(), []byte("fatal: " + timedOut(ctx)), err
	}
	return out.Bytes(), errOut.Bytes(), err
}

// timedOut words what ended a git run early, for RemoteError.Detail.
func timedOut(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "no answer in time"
	}
	return "stopped: " + ctx.Err().Error()
}

// lastLine is what git said went wrong, in one line: the first line it
// began with "fatal:" or "error:" (git follows a failed connection with
// advice about access rights, which says less), else the last non-empty
// line of its standard error.
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, l := range lines {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "fatal: ") || strings.HasPrefix(l, "error: ") {
			return l
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// Fetch fetches the references src (a prefix such as refs/td/claims/)
// from remote into dst (refs/td/remote-claims/origin/), forced and pruned:
// afterwards dst mirrors what the remote has under src. Nothing else is
// fetched, no tags, no FETCH_HEAD, and no automatic gc runs.
func (r *Repo) Fetch(ctx context.Context, remote, src, dst string) error {
	if !ValidRemoteName(remote) {
		return fmt.Errorf("%q is not a remote name", remote)
	}
	for _, p := range []string{src, dst} {
		if !strings.HasPrefix(p, "refs/") || !strings.HasSuffix(p, "/") || !validRevName(strings.TrimSuffix(p, "/")) {
			return fmt.Errorf("%q is not a reference prefix", p)
		}
	}
	_, errOut, err := r.git(ctx, "fetch", "--quiet", "--no-tags", "--prune", "--no-write-fetch-head", "--no-auto-gc", "--no-recurse-submodules",
		remote, "+"+src+"*:"+dst+"*")
	if err != nil {
		if errors.Is(err, ErrNoGitProgram) {
			return err
		}
		return &RemoteError{Op: "fetch", Remote: remote, Detail: lastLine(errOut)}
	}
	return nil
}

// LsRemote lists the references under prefix (refs/td/claims/) that the
// remote has, without fetching anything: one round trip, which is all a
// sync with nothing to do needs.
func (r *Repo) LsRemote(ctx context.Context, remote, prefix string) ([]Ref, error) {
	l, err := r.LsRemoteHead(ctx, remote, prefix, false)
	if err != nil {
		return nil, err
	}
	return l.Refs, nil
}

// RemoteListing is what LsRemoteHead found on a remote.
type RemoteListing struct {
	// Refs are the references under the prefix asked for.
	Refs []Ref
	// Head is the remote's default branch, the branch its HEAD names
	// (refs/heads/main) with the commit it points at; the zero Ref when
	// it was not asked for, or the remote's HEAD names no branch it has.
	Head Ref
}

// LsRemoteHead lists the references under prefix that the remote has
// and, when head is true, its default branch, in one round trip.
func (r *Repo) LsRemoteHead(ctx context.Context, remote, prefix string, head bool) (RemoteListing, error) {
	var l RemoteListing
	if !ValidRemoteName(remote) {
		return l, fmt.Errorf("%q is not a remote name", remote)
	}
	if !strings.HasPrefix(prefix, "refs/") || !strings.HasSuffix(prefix, "/") || !validRevName(strings.TrimSuffix(prefix, "/")) {
		return l, fmt.Errorf("%q is not a reference prefix", prefix)
	}
	args := []string{"ls-remote", "--refs", remote, prefix + "*"}
	if head {
		// --refs would leave HEAD out; --symref says which branch it names.
		args = []string{"ls-remote", "--symref", remote, "HEAD", prefix + "*"}
	}
	out, errOut, err := r.git(ctx, args...)
	if err != nil {
		if errors.Is(err, ErrNoGitProgram) {
			return l, err
		}
		return l, &RemoteError{Op: "ls-remote", Remote: remote, Detail: lastLine(errOut)}
	}
	var headRef, headHash string
	for _, line := range strings.Split(string(out), "\n") {
		left, name, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if !ok {
			continue
		}
		if name == "HEAD" {
			if target, ok := strings.CutPrefix(left, "ref: "); ok {
				headRef = target
			} else if h, ok := parseFullHash(left); ok {
				headHash = h.String()
			}
			continue
		}
		if !strings.HasPrefix(name, prefix) || !validRevName(name) {
			continue
		}
		if h, ok := parseFullHash(left); ok {
			l.Refs = append(l.Refs, Ref{Name: name, Hash: h.String()})
		}
	}
	if strings.HasPrefix(headRef, "refs/heads/") && validRevName(headRef) && headHash != "" {
		l.Head = Ref{Name: headRef, Hash: headHash}
	}
	return l, nil
}

// LsRemoteRef is what the remote's reference name points at, "" when the
// remote has no such reference: one round trip, to compare one claim.
func (r *Repo) LsRemoteRef(ctx context.Context, remote, name string) (string, error) {
	if !ValidRemoteName(remote) {
		return "", fmt.Errorf("%q is not a remote name", remote)
	}
	if err := checkRefName(name); err != nil {
		return "", err
	}
	out, errOut, err := r.git(ctx, "ls-remote", "--refs", remote, name)
	if err != nil {
		if errors.Is(err, ErrNoGitProgram) {
			return "", err
		}
		return "", &RemoteError{Op: "ls-remote", Remote: remote, Detail: lastLine(errOut)}
	}
	// A pattern matches any reference ending in it: keep the exact name.
	for _, line := range strings.Split(string(out), "\n") {
		hash, got, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if !ok || got != name {
			continue
		}
		if h, ok := parseFullHash(hash); ok {
			return h.String(), nil
		}
	}
	return "", nil
}

// FetchRefs fetches the remote's references src, each into dst (forced;
// a dst of "" fetches the objects alone), without tags, FETCH_HEAD or an
// automatic gc: the one claim a command compares, or the default branch
// td sync reads the ledgers of.
func (r *Repo) FetchRefs(ctx context.Context, remote string, src, dst []string) error {
	if !ValidRemoteName(remote) {
		return fmt.Errorf("%q is not a remote name", remote)
	}
	if len(src) != len(dst) {
		return fmt.Errorf("fetch: %d sources for %d destinations", len(src), len(dst))
	}
	args := []string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-gc", "--no-recurse-submodules", remote}
	for i, s := range src {
		if err := checkRefName(s); err != nil {
			return err
		}
		if dst[i] == "" {
			args = append(args, s)
			continue
		}
		if err := checkRefName(dst[i]); err != nil {
			return err
		}
		args = append(args, "+"+s+":"+dst[i])
	}
	_, errOut, err := r.git(ctx, args...)
	if err != nil {
		if errors.Is(err, ErrNoGitProgram) {
			return err
		}
		return &RemoteError{Op: "fetch", Remote: remote, Detail: lastLine(errOut)}
	}
	return nil
}

// HasObject reports whether the repository has the object named hash.
func (r *Repo) HasObject(hash string) bool {
	h, ok := parseFullHash(hash)
	if !ok {
		return false
	}
	o := r.openObjects()
	defer o.close()
	_, _, err := o.read(h)
	return err == nil
}

// PushUpdate is one reference a push sets on the remote, under a lease.
type PushUpdate struct {
	Ref    string // the remote reference, refs/td/claims/td-k3x9qa
	New    string // the object to set it to; "" deletes it
	Expect string // what the remote must hold for the update to apply; "" for nothing
}

// Push sets the references on remote, atomically and each under its
// lease (--force-with-lease with the expected value): if the remote holds
// anything else for any of them, nothing changes there and the error is a
// *RemoteError listing the references rejected.
func (r *Repo) Push(ctx context.Context, remote string, updates []PushUpdate) error {
	if !ValidRemoteName(remote) {
		return fmt.Errorf("%q is not a remote name", remote)
	}
	if len(updates) == 0 {
		return nil
	}
	args := []string{"push", "--quiet", "--atomic", "--porcelain", "--no-verify"}
	var specs []string
	for _, u := range updates {
		if err := checkRefName(u.Ref); err != nil {
			return err
		}
		for _, h := range []string{u.New, u.Expect} {
			if _, ok := parseFullHash(h); h != "" && !ok {
				return fmt.Errorf("push %s: %q is not a full object name", u.Ref, h)
			}
		}
		args = append(args, "--force-with-lease="+u.Ref+":"+u.Expect)
		specs = append(specs, u.New+":"+u.Ref)
	}
	args = append(append(args, remote), specs...)
	out, errOut, err := r.git(ctx, args...)
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrNoGitProgram) {
		return err
	}
	e := &RemoteError{Op: "push", Remote: remote, Detail: lastLine(errOut)}
	for _, line := range strings.Split(string(out), "\n") {
		// Porcelain: "<flag>\t<from>:<to>\t<summary>", flag ! for rejected.
		f := strings.Split(line, "\t")
		if len(f) >= 2 && f[0] == "!" {
			_, to, _ := strings.Cut(f[1], ":")
			e.Rejected = append(e.Rejected, to)
		}
	}
	return e
}
