package links

// MaxLinkWalk is maxLinkWalk, for the external tests.
const MaxLinkWalk = maxLinkWalk
