package links

// MaxLinkWalk is maxLinkWalk, for the external tests.
const MaxLinkWalk = maxLinkWalk

// StatusLookup is statusLookup, for the external tests.
var StatusLookup = statusLookup
