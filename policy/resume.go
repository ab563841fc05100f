package policy

import "time"

// Idle thresholds of a session resume (spec section 8).
const (
	ResumeBlockAfter = time.Hour
	FreshStartAfter  = 48 * time.Hour
)

// How a resumed session is greeted.
const (
	// ResumePlain: under an hour away, the plain context.
	ResumePlain = "plain"
	// ResumeBlock: one hour to two days away, a resume block leads the
	// context.
	ResumeBlock = "block"
	// ResumeFresh: over two days away, the session starts over, its
	// binding kept.
	ResumeFresh = "fresh"
)

// ResumeMode decides how a session that was idle for idle is resumed.
func ResumeMode(idle time.Duration) string {
	switch {
	case idle > FreshStartAfter:
		return ResumeFresh
	case idle >= ResumeBlockAfter:
		return ResumeBlock
	}
	return ResumePlain
}
