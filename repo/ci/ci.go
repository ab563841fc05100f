// Package ci writes the continuous integration files td init --ci adds: a
// job that, on every pull request (GitHub) or merge request (GitLab), runs
// td check --base against the target branch and publishes td diff --format
// markdown, with the td resolve recipe when .todos conflicts with the
// target, as the job's summary and as one comment the job keeps updated.
//
// The job's shell script is one text (Script) shared by both services and
// run by the tests against a local bare remote; each service's file wraps
// it with that service's way of checking out, installing td and
// commenting.
package ci

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tdproject/td/repo"
)

// Services td init --ci knows.
const (
	GitHub = "github"
	GitLab = "gitlab"
)

// Services lists the names --ci takes.
func Services() []string { return []string{GitHub, GitLab} }

// ReportMarker starts the report, so that the job finds its own comment
// to update instead of adding one per run.
const ReportMarker = "<!-- td-report -->"

// ClaimsRefspec is how the job fetches td's claims, which are git
// references outside refs/heads that no checkout fetches: forced, since a
// claim's record is a new parentless commit each time, and with --prune,
// so that a runner that keeps its clone between jobs drops released ones.
const ClaimsRefspec = "+refs/td/claims/*:refs/td/claims/*"

// Script is the job's POSIX shell script. It reads TD_BASE_REF (the target
// branch's name; its tip is origin/TD_BASE_REF), fetches td's claims from
// origin for td check's claims rule (ClaimsRefspec), writes the report to
// td-report.md (TD_REPORT overrides), appends it to GITHUB_STEP_SUMMARY
// when set, and exits 1 when .todos conflicts with the target or td check
// finds a violation. A failed fetch of the claims is reported and does not
// fail the job: td check then notes that the claims rule had none to read.
const Script = `set -u
base="origin/$TD_BASE_REF"
report="${TD_REPORT:-td-report.md}"
status=0
echo '` + ReportMarker + `' > "$report"
# td's claims (refs/td/claims/*) are not branches, so no checkout fetches
# them; td check --base judges the work on claimed issues against them.
if ! git fetch -q --prune --no-tags origin '` + ClaimsRefspec + `' 2> td-fetch.err; then
  { echo "td: could not fetch refs/td/claims/* from origin; td check cannot judge claims:"; cat td-fetch.err; } >&2
fi
rm -f td-fetch.err
# git merge-tree (git 2.38 or later) merges without touching the work
# tree: its first line is the tree, then the conflicted paths.
conflicts=$(git merge-tree --write-tree --name-only --no-messages "$base" HEAD | sed 1d | grep '^\.todos/' || true)
if [ -n "$conflicts" ]; then
  status=1
  {
    echo "### td: .todos conflicts with $TD_BASE_REF"
    echo
    echo "$conflicts" | sed 's/^/- /'
    echo
    echo "td merges these files with its own rules (issues field by field and todo by todo, ledgers by union). On this branch, run:"
    echo
    echo '    git fetch origin'
    echo "    git merge origin/$TD_BASE_REF"
    echo '    td resolve'
    echo '    git commit'
    echo '    git push'
    echo
  } >> "$report"
fi
if ! td diff --format markdown "$base" >> "$report" 2> td-diff.err; then
  status=1
  { echo; echo 'td diff failed:'; echo; sed 's/^/    /' td-diff.err; } >> "$report"
fi
if td check --base "$base" > td-check.out 2>&1; then
  { echo; echo "td check --base $TD_BASE_REF: no violations."; } >> "$report"
  # A rule that could not look says so in a note: pass it on.
  if grep -q '^note: ' td-check.out; then
    { echo; grep '^note: ' td-check.out | sed 's/^/    /'; } >> "$report"
  fi
else
  status=1
  { echo; echo "#### td check --base $TD_BASE_REF"; echo; sed 's/^/    /' td-check.out; } >> "$report"
fi
rm -f td-diff.err td-check.out
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$report" >> "$GITHUB_STEP_SUMMARY"
fi
cat "$report"
exit "$status"
`

// indent prefixes every non-empty line of s with pad.
func indent(s, pad string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			b.WriteString(pad)
		}
		b.WriteString(l)
	}
	return b.String()
}

// githubWorkflow is .github/workflows/td.yml. It runs on
// pull_request_target, because GitHub runs no pull_request workflow for a
// pull request that conflicts with its base, the one time the td resolve
// recipe is needed. pull_request_target runs the base branch's workflow
// with a token that may comment; the pull request's files are only read
// (by td, installed from its module, not from the checkout), and no
// script or expression from the pull request is run or interpolated.
func githubWorkflow() string {
	return `# td: checks .todos on every pull request and keeps one comment with the
# changes (td diff) and any violation (td check --base). Written by
# td init --ci github.
name: td
on:
  pull_request_target:
    types: [opened, synchronize, reopened]
permissions:
  contents: read
  pull-requests: write
concurrency:
  group: td-${{ github.event.pull_request.number }}
  cancel-in-progress: true
jobs:
  td:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          ref: ${{ github.event.pull_request.head.sha }}
          fetch-depth: 0
          persist-credentials: false
      - uses: actions/setup-go@v5
        with:
          go-version: stable
          cache: false
      - name: Install td
        run: go install github.com/tdproject/td/cmd/td@latest
      - name: td check and td diff
        env:
          TD_BASE_REF: ${{ github.base_ref }}
          TD_TOKEN: ${{ github.token }}
        run: |
          # The checkout keeps no credentials (persist-credentials: false):
          # the job's token reads td's claims for this step only, and is
          # written to no file.
          if [ -n "${TD_TOKEN:-}" ] && [ -n "${GITHUB_SERVER_URL:-}" ]; then
            export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0="http.$GITHUB_SERVER_URL/.extraheader"
            GIT_CONFIG_VALUE_0="AUTHORIZATION: basic $(printf 'x-access-token:%s' "$TD_TOKEN" | base64 | tr -d '\n')"
            export GIT_CONFIG_VALUE_0
          fi
` + indent(Script, "          ") + `      - name: Comment on the pull request
        if: always() && hashFiles('td-report.md') != ''
        env:
          GH_TOKEN: ${{ github.token }}
          PR: ${{ github.event.pull_request.number }}
          REPO: ${{ github.repository }}
        run: |
          id=$(gh api "repos/$REPO/issues/$PR/comments" --paginate --jq '.[] | select(.body | startswith("` + ReportMarker + `")) | .id' | head -n 1)
          if [ -n "$id" ]; then
            gh api --method PATCH "repos/$REPO/issues/comments/$id" -F body=@td-report.md > /dev/null
          else
            gh api --method POST "repos/$REPO/issues/$PR/comments" -F body=@td-report.md > /dev/null
          fi
`
}

// gitlabCI is .gitlab/td.gitlab-ci.yml, included from .gitlab-ci.yml. The
// report is the job's log and an artifact the merge request links to; with
// a TD_GITLAB_TOKEN CI variable (a project access token with the api
// scope) the job also keeps one merge request note up to date.
func gitlabCI() string {
	return `# td: checks .todos on every merge request and publishes the changes (td
# diff) and any violation (td check --base). Written by td init --ci gitlab.
# Set a TD_GITLAB_TOKEN CI/CD variable (a project access token with the api
# scope) for the job to keep one note on the merge request up to date.
td:
  image: golang:1
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
  variables:
    GIT_DEPTH: "0"
    TD_BASE_REF: $CI_MERGE_REQUEST_TARGET_BRANCH_NAME
  before_script:
    - go install github.com/tdproject/td/cmd/td@latest
    - git fetch origin "+refs/heads/$TD_BASE_REF:refs/remotes/origin/$TD_BASE_REF"
  script:
    - |
` + indent(Script, "      ") + `  after_script:
    - |
      if [ -n "${TD_GITLAB_TOKEN:-}" ] && [ -f td-report.md ]; then
        api="$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests/$CI_MERGE_REQUEST_IID/notes"
        id=$(curl -sf --header "PRIVATE-TOKEN: $TD_GITLAB_TOKEN" "$api?per_page=100" | tr '{' '\n' | grep '"body":"` + ReportMarker + `' | sed -n 's/^"id":\([0-9]*\),.*/\1/p' | head -n 1)
        if [ -n "$id" ]; then
          curl -sf --request PUT --header "PRIVATE-TOKEN: $TD_GITLAB_TOKEN" --data-urlencode "body@td-report.md" "$api/$id" > /dev/null
        else
          curl -sf --request POST --header "PRIVATE-TOKEN: $TD_GITLAB_TOKEN" --data-urlencode "body@td-report.md" "$api" > /dev/null
        fi
      fi
  artifacts:
    when: always
    expose_as: td report
    paths:
      - td-report.md
`
}

// gitlabInclude is the line .gitlab-ci.yml needs to run td's job.
const gitlabInclude = "include:\n  - local: .gitlab/td.gitlab-ci.yml\n"

// File is one file td init --ci wrote or would need.
type File struct {
	// Path is relative to the work tree root, slash-separated.
	Path string `json:"path"`
	// Action is "created", "unchanged", or "add" for a file of the user's
	// td did not change and that needs the lines in Lines.
	Action string `json:"action"`
	// Lines is what to add to a file td leaves to the user.
	Lines string `json:"lines,omitempty"`
}

// Content returns the files of service, by path.
func Content(service string) (map[string]string, error) {
	switch service {
	case GitHub:
		return map[string]string{".github/workflows/td.yml": githubWorkflow()}, nil
	case GitLab:
		return map[string]string{".gitlab/td.gitlab-ci.yml": gitlabCI()}, nil
	}
	return nil, repo.Errorf(repo.CodeInvalid, "--ci %q must be one of %s", service, strings.Join(Services(), ", "))
}

// Write writes service's CI files under root. A file td wrote before and
// that is unchanged is left; a different file at that path is refused,
// since it is the user's. For GitLab, a .gitlab-ci.yml that does not exist
// is created with the include; one that exists is the user's, and the
// include it needs is returned for them to add.
func Write(root, service string) ([]File, error) {
	files, err := Content(service)
	if err != nil {
		return nil, err
	}
	var out []File
	for _, p := range slices.Sorted(maps.Keys(files)) {
		f, err := writeNew(root, p, files[p])
		if err != nil {
			return out, err
		}
		out = append(out, f)
	}
	if service == GitLab {
		p := filepath.Join(root, ".gitlab-ci.yml")
		data, err := os.ReadFile(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := repo.WriteFileAtomic(p, []byte(gitlabInclude)); err != nil {
				return out, err
			}
			out = append(out, File{Path: ".gitlab-ci.yml", Action: "created"})
		case err != nil:
			return out, fmt.Errorf("read .gitlab-ci.yml: %w", err)
		case bytes.Contains(data, []byte(".gitlab/td.gitlab-ci.yml")):
			out = append(out, File{Path: ".gitlab-ci.yml", Action: "unchanged"})
		default:
			out = append(out, File{Path: ".gitlab-ci.yml", Action: "add", Lines: gitlabInclude})
		}
	}
	return out, nil
}

// writeNew writes content at root/p unless a file is there: the same
// content is "unchanged", anything else is refused.
func writeNew(root, p, content string) (File, error) {
	full := filepath.Join(root, filepath.FromSlash(p))
	data, err := os.ReadFile(full)
	switch {
	case err == nil && string(data) == content:
		return File{Path: p, Action: "unchanged"}, nil
	case err == nil:
		return File{}, repo.Errorf(repo.CodeRefused, "%s exists and is not what td writes; td does not overwrite it: move it aside to have td write its own", p)
	case !errors.Is(err, fs.ErrNotExist):
		return File{}, fmt.Errorf("read %s: %w", p, err)
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return File{}, fmt.Errorf("create %s: %w", filepath.Dir(p), err)
	}
	if err := repo.WriteFileAtomic(full, []byte(content)); err != nil {
		return File{}, err
	}
	return File{Path: p, Action: "created"}, nil
}
