package command

import "github.com/tdproject/td/repo/exchange"

// backlogSource is td import backlog: a Backlog.md folder.
func backlogSource() importSource {
	return importSource{
		name:  "backlog",
		usage: "import a Backlog.md folder: its tasks, drafts, completed and archived tasks",
		args:  "DIR",
		description: `DIR is the backlog/ folder (or the project holding it). Every task file of
tasks/, drafts/, completed/ and archive/tasks/ becomes an issue: To Do, In
Progress and Done map onto open, in_progress and closed; drafts are open,
completed tasks closed, archived ones closed as wontfix; high, medium and low
become P1, P2 and P3. Acceptance Criteria (between the AC markers) become
criteria and Definition of Done items steps; the description, Implementation
Plan and Implementation Notes are kept as sections; dependencies become
blocked_by and parent_task_id child_of links.

Examples:
   td import backlog backlog --dry-run
   td import backlog backlog`,
		read: func(r *runner, o *ImportOptions) (*exchange.Parsed, error) {
			return exchange.ParseBacklog(r.path(o.Path), o.Path)
		},
	}
}
