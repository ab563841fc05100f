package command

import "github.com/tdproject/td/repo/exchange"

// githubSource is td import github: the JSON gh issue list writes.
func githubSource() importSource {
	return importSource{
		name:  "github",
		usage: "import GitHub issues: the JSON gh issue list --json writes",
		args:  "FILE",
		description: `FILE is what gh issue list --json number,title,body,state,labels,assignees,
comments,createdAt,closedAt writes ("-" reads standard input). Task lists in a
body become todos (under an "Acceptance criteria" heading, criteria); labels
P0..P4 set the priority and bug, enhancement or feature the type; the first
assignee is the assignee; comments and closing go to the ledger with their
authors and times. Other fields are kept under imported:.

Examples:
   gh issue list --state all --limit 1000 --json number,title,body,state,labels,assignees,comments,createdAt,closedAt > issues.json
   td import github issues.json --dry-run
   td import github issues.json`,
		read: func(r *runner, o *ImportOptions) (*exchange.Parsed, error) {
			data, err := r.readInput(o.Path, maxImportInput)
			if err != nil {
				return nil, err
			}
			return exchange.ParseGitHub(o.Path, data)
		},
	}
}
