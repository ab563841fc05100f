package todos

import "github.com/tdproject/td/repo"

// Unexported names the external tests use.
const ProposalSuffixLen = proposalSuffixLen

var (
	ProposalsOf = proposalsOf
	// IssueProposals and ProposalTarget are the store functions of the
	// same names, unexported.
	IssueProposals = func(s *repo.Store, id string) ([]Proposal, error) { return issueProposals(s, id) }
	ProposalTarget = proposalTarget
)
