package opencode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tdproject/td/repo/harness"
)

func TestPluginForm(t *testing.T) {
	v2 := "// td's OpenCode plugin, written by td hooks install --opencode.\nimport { define } from \"@opencode-ai/plugin/v2/promise\";\nexport default define({ id: \"td\", setup: async (ctx) => {} });\n"
	for data, want := range map[string]string{
		string(Plugin): FormV1,
		"// td's OpenCode plugin, written by td hooks install --opencode.\nexport const TdPlugin = async () => ({});\n": FormV1,
		v2: FormV2,
		"// td's OpenCode plugin\n// td-plugin-form: v2 (next)\n": FormV2,
		"export const Mine = async () => ({});\n":                 "",
		"": "",
	} {
		if got := PluginForm([]byte(data)); got != want {
			t.Errorf("%.60q: %q, want %q", data, got, want)
		}
	}
}

func TestReadiness(t *testing.T) {
	root := t.TempDir()
	if r, err := Readiness(root); err != nil || r.Installed || r.Runs != harness.RunsNo {
		t.Fatalf("no plugin: %+v %v", r, err)
	}
	if _, err := Install(root); err != nil {
		t.Fatal(err)
	}
	if r, err := Readiness(root); err != nil || !r.Installed || r.Form != FormV1 || r.Runs != harness.RunsYes || len(r.Missing) != 0 {
		t.Fatalf("td's plugin: %+v %v", r, err)
	}
	p := filepath.Join(root, filepath.FromSlash(ConfigFile))
	os.WriteFile(p, append([]byte(nil), Plugin[:len(Plugin)-10]...), 0o644)
	if r, err := Readiness(root); err != nil || strings.Join(r.Missing, ",") != "plugin" || r.Runs != harness.RunsYes {
		t.Fatalf("an older plugin of the same form: %+v %v", r, err)
	}
	os.WriteFile(p, []byte("export const Mine = async () => ({});\n"), 0o644)
	if r, err := Readiness(root); err != nil || r.Installed || !strings.Contains(r.Notes[0], "is not td's plugin") {
		t.Fatalf("a plugin of the user's: %+v %v", r, err)
	}
}
