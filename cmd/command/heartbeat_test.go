package command

import "testing"

func TestHeartbeatOptions(t *testing.T) {
	testParse(t, (*runner).heartbeatCommand, []parseCase[HeartbeatOptions]{
		{name: "all", argv: []string{"heartbeat"}, want: HeartbeatOptions{Issues: []string{}}},
		{name: "some", argv: []string{"heartbeat", "k3x", "qkm", "--session", "ses_a"}, want: HeartbeatOptions{Issues: []string{"k3x", "qkm"}, Session: "ses_a"}},
		{name: "unknown flag", argv: []string{"heartbeat", "--every"}, usage: true},
	})
}
