package command

import (
	"testing"
	"time"
)

func TestDoctorOptions(t *testing.T) {
	testParse(t, (*runner).doctorCommand, []parseCase[DoctorOptions]{
		{name: "check only", argv: []string{"doctor"}, want: DoctorOptions{}},
		{name: "fix", argv: []string{"doctor", "--fix"}, want: DoctorOptions{Fix: true}},
		{name: "idle", argv: []string{"doctor", "--idle", "168h"}, want: DoctorOptions{Idle: 168 * time.Hour}},
		{name: "negative idle", argv: []string{"doctor", "--idle", "-1h"}, usage: true},
		{name: "bad idle", argv: []string{"doctor", "--idle", "a week"}, usage: true},
		{name: "an argument", argv: []string{"doctor", "now"}, usage: true},
	})
}
