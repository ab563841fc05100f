package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tdproject/td/repo/gen"
	"github.com/tdproject/td/repo/gitrepo"
)

// importTarget is the spec's bound on importing 10,000 beads issues.
const importTarget = 10 * time.Second

// runImportBench times td import beads of n generated beads issues
// (gen.BeadsJSONL) into a fresh git repository where td init has run,
// runs times for each git mode (stage, td init's default, and auto, where
// the import is one commit), then runs td check on the last repository of
// each mode and reports its verdict: an import must leave a repository
// td check passes.
func runImportBench(out io.Writer, bin string, n, runs int) error {
	tmp, err := os.MkdirTemp("", "tdbench-import-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	input := filepath.Join(tmp, "issues.jsonl")
	f, err := os.Create(input)
	if err != nil {
		return err
	}
	if err := gen.BeadsJSONL(f, n); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fi, err := os.Stat(input)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "td import beads: %d issues (%.1f MB of JSONL), %d runs per git mode, each into a new repository\n", n, float64(fi.Size())/1e6, runs)
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		// Wall times mean little on a busy machine; CPU times less so.
		fmt.Fprintf(out, "load average: %s", load)
	}
	fmt.Fprintln(out)
	env := benchEnv()
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "git mode\tmedian s\tmin s\tmax s\tcpu s\ttarget s\t\ttd check\tcheck s\t")
	missed := 0
	for _, mode := range []string{"stage", "auto"} {
		var times, cpu []time.Duration
		var last string
		for r := 0; r < runs; r++ {
			root := filepath.Join(tmp, fmt.Sprintf("%s-%d", mode, r))
			if err := freshRepo(bin, root, env, mode); err != nil {
				return err
			}
			wall, c, err := runTD(bin, root, env, "import", "beads", input)
			if err != nil {
				return err
			}
			times, cpu = append(times, wall), append(cpu, c)
			if r < runs-1 {
				if err := os.RemoveAll(root); err != nil {
					return err
				}
			}
			last = root
		}
		issues, err := countIssues(last)
		if err != nil {
			return err
		}
		if issues != n {
			return fmt.Errorf("git mode %s: the import made %d issues, want %d", mode, issues, n)
		}
		check := "passed"
		checkTime, _, err := runTD(bin, last, env, "check")
		if err != nil {
			check = "FAILED: " + err.Error()
			missed++
		}
		slices.Sort(times)
		slices.Sort(cpu)
		med := median(times)
		verdict := "met"
		if med > importTarget {
			verdict = "MISSED"
			missed++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", mode, secs(med), secs(times[0]), secs(times[len(times)-1]), secs(median(cpu)), secs(importTarget), verdict, check, secs(checkTime))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if missed > 0 {
		return fmt.Errorf("%d import targets or checks missed", missed)
	}
	return nil
}

// freshRepo makes a git repository at root, runs td init and sets the
// git mode.
func freshRepo(bin, root string, env []string, mode string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	if _, err := gitrepo.Init(root); err != nil {
		return err
	}
	if _, _, err := runTD(bin, root, env, "init"); err != nil {
		return err
	}
	cfg := filepath.Join(root, ".todos", "config.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		return err
	}
	if !bytes.Contains(data, []byte("mode: stage")) {
		return fmt.Errorf("%s has no git mode: stage to change", cfg)
	}
	return os.WriteFile(cfg, bytes.Replace(data, []byte("mode: stage"), []byte("mode: "+mode), 1), 0o644)
}

// runTD runs td once and returns its wall and CPU time.
func runTD(bin, dir string, env []string, args ...string) (time.Duration, time.Duration, error) {
	var stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, nil, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("td %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f", d.Seconds()) }
