package command

import "testing"

func TestFeatureListOptions(t *testing.T) {
	testParse(t, (*runner).featureListCommand, []parseCase[FeatureListOptions]{
		{name: "list", argv: []string{"list"}, want: FeatureListOptions{}},
		{name: "argument", argv: []string{"list", "x"}, usage: true},
	})
}

func TestFeatureGetOptions(t *testing.T) {
	testParse(t, (*runner).featureGetCommand, []parseCase[FeatureGetOptions]{
		{name: "name", argv: []string{"get", "balanced_review_policy"}, want: FeatureGetOptions{Name: "balanced_review_policy"}},
		{name: "no name", argv: []string{"get"}, usage: true},
	})
}

func TestFeatureSetOptions(t *testing.T) {
	testParse(t, (*runner).featureSetCommand, []parseCase[FeatureSetOptions]{
		{name: "false", argv: []string{"set", "balanced_review_policy", "false"}, want: FeatureSetOptions{Name: "balanced_review_policy", Value: false}},
		{name: "on", argv: []string{"set", "x", "on", "--session", "s-1"}, want: FeatureSetOptions{Session: "s-1", Name: "x", Value: true}},
		{name: "not a bool", argv: []string{"set", "x", "maybe"}, usage: true},
		{name: "no value", argv: []string{"set", "x"}, usage: true},
	})
}

func TestFeatureUnsetOptions(t *testing.T) {
	testParse(t, (*runner).featureUnsetCommand, []parseCase[FeatureUnsetOptions]{
		{name: "name", argv: []string{"unset", "x"}, want: FeatureUnsetOptions{Name: "x"}},
		{name: "two", argv: []string{"unset", "x", "y"}, usage: true},
	})
}
