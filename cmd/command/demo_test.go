package command

import "testing"

func TestDemoOptions(t *testing.T) {
	testParse(t, (*runner).demoCommand, []parseCase[DemoOptions]{
		{name: "default", argv: []string{"demo"}, want: DemoOptions{}},
		{name: "keep", argv: []string{"demo", "--keep"}, want: DemoOptions{Keep: true}},
		{name: "argument", argv: []string{"demo", "now"}, usage: true},
	})
}
