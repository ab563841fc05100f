package policy

import (
	"testing"
	"time"
)

func TestResumeMode(t *testing.T) {
	tests := []struct {
		idle time.Duration
		want string
	}{
		{0, ResumePlain},
		{-time.Minute, ResumePlain}, // a clock that went back is not an absence
		{59*time.Minute + 59*time.Second, ResumePlain},
		{time.Hour, ResumeBlock},
		{3 * time.Hour, ResumeBlock},
		{48 * time.Hour, ResumeBlock},
		{48*time.Hour + time.Second, ResumeFresh},
		{72 * time.Hour, ResumeFresh},
	}
	for _, tt := range tests {
		if got := ResumeMode(tt.idle); got != tt.want {
			t.Errorf("ResumeMode(%v) = %s, want %s", tt.idle, got, tt.want)
		}
	}
}
