package shellcmd

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// tdRuns lists the td commands a line runs, each as its arguments after
// the program, joined by spaces, with TD_SESSION's value when the line
// sets it ("=ses") or removes it ("-").
func tdRuns(line string) []string {
	var out []string
	for _, c := range Read(line).Commands {
		if Program(c.Args[0]) != "td" {
			continue
		}
		s := strings.Join(c.Args[1:], " ")
		if v, ok := c.Env["TD_SESSION"]; ok {
			s += " =" + v
		} else if c.Removes("TD_SESSION") {
			s += " -"
		}
		out = append(out, s)
	}
	return out
}

func writePaths(line string) []string {
	var out []string
	for _, w := range Read(line).Writes {
		p := w.Path
		if w.Dir != "" {
			p = w.Dir + ":" + p
		}
		out = append(out, p)
	}
	return out
}

// TestRead: the programs a line runs and the files it writes, through
// every spelling a shell allows that reading can see.
func TestRead(t *testing.T) {
	for _, c := range []struct {
		line   string
		runs   []string // td's arguments (see tdRuns)
		writes []string // paths written, "dir:path" after a cd
	}{
		// Plain and quoted.
		{"td approve x", []string{"approve x"}, nil},
		{"'td' approve x", []string{"approve x"}, nil},
		{`"td" approve x`, []string{"approve x"}, nil},
		{`\td approve x`, []string{"approve x"}, nil},
		{`t''d approve x`, []string{"approve x"}, nil},
		{`t"d" approve x`, []string{"approve x"}, nil},
		{`$'td' approve x`, []string{"approve x"}, nil},
		{`$'\x74\x64' approve x`, []string{"approve x"}, nil},
		{`$'\164d' approve x`, []string{"approve x"}, nil},
		{"td ap\\\nprove x", []string{"approve x"}, nil},
		{"td \\\n approve x", []string{"approve x"}, nil},
		// Paths to td.
		{"/usr/local/bin/td approve x", []string{"approve x"}, nil},
		{"./td approve x", []string{"approve x"}, nil},
		{"../bin/td approve x", []string{"approve x"}, nil},
		{"~/go/bin/td approve x", []string{"approve x"}, nil},
		{`'C:\tools\td.exe' approve x`, []string{"approve x"}, nil},
		{"$(which td) approve x", []string{"approve x"}, nil},
		{"`command -v td` approve x", []string{"approve x"}, nil},
		{"go run ./cmd/td approve x", []string{"approve x"}, nil},
		// Wrappers.
		{"env td approve x", []string{"approve x"}, nil},
		{"/usr/bin/env td approve x", []string{"approve x"}, nil},
		{"env -i td approve x", []string{"approve x -"}, nil},
		{"env -u TD_SESSION td approve x", []string{"approve x -"}, nil},
		{"env -uTD_SESSION td approve x", []string{"approve x -"}, nil},
		{"env --unset=TD_SESSION td approve x", []string{"approve x -"}, nil},
		{"env TD_SESSION=ses_b td approve x", []string{"approve x =ses_b"}, nil},
		{"env -S 'td approve x'", []string{"approve x"}, nil},
		{"env -C /repo td approve x", []string{"approve x"}, nil},
		{"env -- td approve x", []string{"approve x"}, nil},
		{"nice td approve x", []string{"approve x"}, nil},
		{"nice -n 10 td approve x", []string{"approve x"}, nil},
		{"nice -n10 td approve x", []string{"approve x"}, nil},
		{"nice -5 td approve x", []string{"approve x"}, nil},
		{"nohup td approve x &", []string{"approve x"}, nil},
		{"command td approve x", []string{"approve x"}, nil},
		{"command -p td approve x", []string{"approve x"}, nil},
		{"command -v td", nil, nil},
		{"exec td approve x", []string{"approve x"}, nil},
		{"exec -a other td approve x", []string{"approve x"}, nil},
		{"builtin command td approve x", []string{"approve x"}, nil},
		{"sudo td approve x", []string{"approve x"}, nil},
		{"sudo -u lead -E td approve x", []string{"approve x"}, nil},
		{"doas td approve x", []string{"approve x"}, nil},
		{"time td approve x", []string{"approve x"}, nil},
		{"time -p td approve x", []string{"approve x"}, nil},
		{"timeout 10 td approve x", []string{"approve x"}, nil},
		{"timeout -s KILL 5s td approve x", []string{"approve x"}, nil},
		{"stdbuf -oL td approve x", []string{"approve x"}, nil},
		{"stdbuf -o 0 td approve x", []string{"approve x"}, nil},
		{"ionice -c 3 td approve x", []string{"approve x"}, nil},
		{"taskset 0x1 td approve x", []string{"approve x"}, nil},
		{"setsid td approve x", []string{"approve x"}, nil},
		{"flock /tmp/l td approve x", []string{"approve x"}, nil},
		{"flock /tmp/l -c 'td approve x'", []string{"approve x"}, nil},
		{"watch -n 5 td approve x", []string{"approve x"}, nil},
		{"nice env nohup td approve x", []string{"approve x"}, nil},
		{"! td approve x", []string{"approve x"}, nil},
		// xargs and find.
		{"echo td-x | xargs td approve", []string{"approve"}, nil},
		{"echo x | xargs -I{} td approve {}", []string{"approve {}"}, nil},
		{"echo x | xargs -n 1 td approve", []string{"approve"}, nil},
		{"xargs -a ids.txt td approve", []string{"approve"}, nil},
		{"find . -name '*.md' -exec td approve {} \\;", []string{"approve {}"}, nil},
		{"find . -execdir td approve {} +", []string{"approve {}"}, nil},
		// Nested shells.
		{"bash -c 'td approve x'", []string{"approve x"}, nil},
		{"sh -c 'td approve x'", []string{"approve x"}, nil},
		{"/bin/bash -lc 'td approve x'", []string{"approve x"}, nil},
		{"bash -o pipefail -c 'td approve x'", []string{"approve x"}, nil},
		{"zsh -c \"td approve x\"", []string{"approve x"}, nil},
		{"dash -ec 'td approve x'", []string{"approve x"}, nil},
		{"busybox sh -c 'td approve x'", []string{"approve x"}, nil},
		{"bash -c 'unset TD_SESSION; td approve x'", []string{"approve x -"}, nil},
		{"bash -c \"bash -c 'td approve x'\"", []string{"approve x"}, nil},
		{"echo 'td approve x' | bash", []string{"approve x"}, nil},
		{"printf 'td approve x\\n' | sh", []string{"approve x"}, nil},
		{"bash <<< 'td approve x'", []string{"approve x"}, nil},
		{"bash <<EOF\ntd approve x\nEOF", []string{"approve x"}, nil},
		{"sh <<-'EOF'\n\ttd approve x\n\tEOF\n", []string{"approve x"}, nil},
		{"cat <<EOF | bash\ntd approve x\nEOF", []string{"approve x"}, nil},
		{"bash script.sh", nil, nil},
		{"eval td approve x", []string{"approve x"}, nil},
		{"eval 'td approve x'", []string{"approve x"}, nil},
		{"su lead -c 'td approve x'", []string{"approve x"}, nil},
		{"script -qc 'td approve x' /dev/null", nil, nil},
		{"script -q -c 'td approve x' /dev/null", []string{"approve x"}, nil},
		// Substitutions and compound commands.
		{"echo $(td approve x)", []string{"approve x"}, nil},
		{"echo \"$(td approve x)\"", []string{"approve x"}, nil},
		{"echo `td approve x`", []string{"approve x"}, nil},
		{"echo $(echo $(td approve x))", []string{"approve x"}, nil},
		{"cat <(td approve x)", []string{"approve x"}, nil},
		{"(td approve x)", []string{"approve x"}, nil},
		{"{ td approve x; }", []string{"approve x"}, nil},
		{"if true; then td approve x; fi", []string{"approve x"}, nil},
		{"for i in a b; do td approve $i; done", []string{"approve $i"}, nil},
		{"while read id; do td approve $id; done < ids", []string{"approve $id"}, nil},
		{"f() { td approve x; }; f", []string{"approve x"}, nil},
		{"true && td approve x || false", []string{"approve x"}, nil},
		{"td show x; td approve x", []string{"show x", "approve x"}, nil},
		{"td show x&td approve x", []string{"show x", "approve x"}, nil},
		{"td show x|td approve x", []string{"show x", "approve x"}, nil},
		// The environment.
		{"TD_SESSION= td approve x", []string{"approve x ="}, nil},
		{"TD_SESSION=ses_a td approve x", []string{"approve x =ses_a"}, nil},
		{"unset TD_SESSION; td approve x", []string{"approve x -"}, nil},
		{"unset -v TD_SESSION && td approve x", []string{"approve x -"}, nil},
		{"export TD_SESSION=ses_c; td approve x", []string{"approve x =ses_c"}, nil},
		{"TD_SESSION=ses_d; td approve x", []string{"approve x =ses_d"}, nil},
		{"(unset TD_SESSION); td approve x", []string{"approve x -"}, nil},
		// Not td.
		{"echo 'td approve x'", nil, nil},
		{"git commit -m 'td approve later'", nil, nil},
		{"grep -r 'td approve' docs", nil, nil},
		{"tdx approve x", nil, nil},
		{"std approve x", nil, nil},
		{"# td approve x", nil, nil},
		{"echo x # td approve x", nil, nil},
		{"cat <<EOF\ntd approve x\nEOF", nil, nil},
		{"git commit -F- <<'EOF'\ntd approve x\nEOF", nil, nil},
		{"$TD approve x", nil, nil},
		// Interpreters.
		{`python3 -c "import os; os.system('td approve x')"`, []string{"approve x"}, nil},
		{`python -c "import subprocess; subprocess.run(['td', 'approve', 'x'])"`, []string{"approve x"}, nil},
		{`node -e "require('child_process').execSync('td approve x')"`, []string{"approve x"}, nil},
		{`perl -e 'system("td", "approve", "x")'`, []string{"approve x"}, nil},
		// Writes.
		{"echo x > .todos/config.yaml", nil, []string{".todos/config.yaml"}},
		{"echo x >> .todos/history/td-a.jsonl", nil, []string{".todos/history/td-a.jsonl"}},
		{"echo x>>.todos/history/td-a.jsonl", nil, []string{".todos/history/td-a.jsonl"}},
		{"echo x >| f", nil, []string{"f"}},
		{"echo x &> f", nil, []string{"f"}},
		{"echo x 2> err.log", nil, []string{"err.log"}},
		{"echo x 2>&1 >/dev/null", nil, nil},
		{"echo x >&2", nil, nil},
		{"cat > f <<EOF\nx\nEOF", nil, []string{"f"}},
		{"echo x | tee .todos/sessions/ses_a.yaml", nil, []string{".todos/sessions/ses_a.yaml"}},
		{"echo x | tee -a a b", nil, []string{"a", "b"}},
		{"sed -i 's/a/b/' .todos/config.yaml", nil, []string{".todos/config.yaml"}},
		{"sed -i.bak -e 's/a/b/' f g", nil, []string{"f", "g"}},
		{"sed --in-place 's/a/b/' f", nil, []string{"f"}},
		{"sed -Ei 's/a/b/' f", nil, []string{"f"}},
		{"sed 's/a/b/' f", nil, nil},
		{"perl -pi -e 's/a/b/' f", nil, []string{"f"}},
		{"cp /tmp/x .todos/history/td-a.jsonl", nil, []string{".todos/history/td-a.jsonl"}},
		{"cp -t .todos/sessions a b", nil, []string{".todos/sessions"}},
		{"mv .todos/history/a.jsonl /tmp/", nil, []string{".todos/history/a.jsonl", "/tmp/"}},
		{"rm -f .todos/security_events.jsonl", nil, []string{".todos/security_events.jsonl"}},
		{"truncate -s 0 .todos/history/a.jsonl", nil, []string{".todos/history/a.jsonl"}},
		{"dd if=/dev/zero of=f bs=1 count=1", nil, []string{"f"}},
		{"ln -sf /tmp/x .todos/config.yaml", nil, []string{".todos/config.yaml"}},
		{"git checkout -- .todos/history/a.jsonl", nil, []string{".todos/history/a.jsonl"}},
		{"git checkout main", nil, nil},
		{"git restore .todos/history/a.jsonl", nil, []string{".todos/history/a.jsonl"}},
		{"cd .todos && echo x >> history/a.jsonl", nil, []string{".todos:history/a.jsonl"}},
		{"cd .todos; cd history; rm a.jsonl", nil, []string{".todos/history:a.jsonl"}},
		{"bash -c 'echo x > .todos/config.yaml'", nil, []string{".todos/config.yaml"}},
		{"xargs sed -i s/a/b/ < list", nil, nil},
		{"find .todos -name '*.jsonl' -delete", nil, []string{".todos"}},
		{"find . -exec rm {} +", nil, []string{"{}"}},
		{`python3 -c "open('.todos/config.yaml', 'w').write('x')"`, nil, []string{".todos/config.yaml"}},
		{`python3 -c "open('.todos/config.yaml').read()"`, nil, nil},
		{`python3 -c "open('.todos/history/a.jsonl', mode='a')"`, nil, nil},
		{`python3 -c "from pathlib import Path; Path('.todos/anchors.md').write_text('')"`, nil, []string{".todos/anchors.md"}},
		{`python3 -c "import shutil; shutil.copy('/tmp/x', '.todos/config.yaml')"`, nil, []string{"/tmp/x", ".todos/config.yaml"}},
		{`python3 - <<EOF` + "\nopen('.todos/config.yaml','w')\nEOF", nil, []string{".todos/config.yaml"}},
		{`perl -e 'open(my $f, ">>", ".todos/history/a.jsonl")'`, nil, nil},
		{`perl -e 'open(F, ">>.todos/history/a.jsonl")'`, nil, []string{".todos/history/a.jsonl"}},
		{`node -e "require('fs').writeFileSync('.todos/config.yaml', '')"`, nil, []string{".todos/config.yaml"}},
		{`ruby -e "File.write('.todos/config.yaml', '')"`, nil, []string{".todos/config.yaml"}},
		{"go test ./... | tee out.txt", nil, []string{"out.txt"}},
		{"cat .todos/config.yaml", nil, nil},
		{"", nil, nil},
	} {
		if got := tdRuns(c.line); !slices.Equal(got, c.runs) {
			t.Errorf("%q runs td %q, want %q", c.line, got, c.runs)
		}
		if got := writePaths(c.line); !slices.Equal(got, c.writes) {
			t.Errorf("%q writes %q, want %q", c.line, got, c.writes)
		}
	}
}

// FuzzRead: reading any line never panics nor hangs, every command has a
// program, and a td command written first on a line, whatever follows
// it, is read with its arguments.
func FuzzRead(f *testing.F) {
	for _, seed := range []string{
		"td approve x",
		"bash -c 'unset TD_SESSION; td approve x'",
		"echo $(echo `td approve x`) > f",
		"cat <<EOF | sh\ntd approve x\nEOF",
		`python3 -c "open('a','w')"`,
		"env -S 'nice td approve x'",
		"\"unterminated $(",
		"$'\\x",
		"((((((((",
		"find . -exec",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		sc := Read(line)
		for _, c := range sc.Commands {
			if len(c.Args) == 0 {
				t.Fatalf("%q: a command with no program", line)
			}
		}
		got := tdRuns("td approve x; " + line)
		if len(got) == 0 || !strings.HasPrefix(got[0], "approve x") {
			t.Fatalf("%q: the td approve before it read as %q", line, got)
		}
	})
}

// TestHostileSizes: a line at the size cap, built to make a reader go
// quadratic (nesting, a long list of literals, eval upon eval), reads in
// time a hook can spend.
func TestHostileSizes(t *testing.T) {
	for _, c := range []struct {
		name   string
		line   string
		unread bool
	}{
		{"substitutions", strings.Repeat("$(", maxInput/2), true},
		{"backquotes", strings.Repeat("`", maxInput), false},
		{"subshells", strings.Repeat("(", maxInput), false},
		{"words", strings.Repeat("a ", maxInput/2), false},
		{"pipes", strings.Repeat("x | ", maxInput/4), true},
		{"evals", strings.Repeat("eval ", maxInput/5) + "td approve x", true},
		{"heredocs", strings.Repeat("<<a\n", maxInput/4), false},
		{"literals", "python3 -c \"" + strings.Repeat("'a', ", maxInput/6) + "\"", false},
		{"opens", "python3 -c \"" + strings.Repeat("open('a','w');", maxInput/16) + "\"", false},
		{"over the cap", strings.Repeat(" ", maxInput) + "td approve x", true},
	} {
		start := time.Now()
		sc := Read(c.line)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: %d bytes read in %s", c.name, len(c.line), d)
		}
		if sc.Unread != c.unread {
			t.Errorf("%s: unread %v, want %v", c.name, sc.Unread, c.unread)
		}
	}
}
