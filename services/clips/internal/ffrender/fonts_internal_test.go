package ffrender

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"hookline.dev/pkg/media/fonts"
)

// TestEmbeddedFontsWinOverTheSystems: through the renderer's fontconfig
// file each caption family matches our embedded file, even where the
// system has faces of that family (deps.sh installs fonts-inter, whose
// Inter Display Regular would otherwise win over our Black), and other
// families still come from the system.
func TestEmbeddedFontsWinOverTheSystems(t *testing.T) {
	if _, err := exec.LookPath("fc-match"); err != nil {
		t.Fatal("fc-match is not installed: run scripts/deps.sh media")
	}
	dir := t.TempDir()
	r := &Renderer{FontDir: dir}
	conf, err := r.fontconfig()
	if err != nil {
		t.Fatal(err)
	}
	match := func(family string) string {
		cmd := exec.CommandContext(t.Context(), "fc-match", "-f", "%{file}", family)
		cmd.Env = append(cmd.Environ(), "FONTCONFIG_FILE="+conf)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("fc-match %s: %v", family, err)
		}
		return string(out)
	}
	for name, family := range fonts.Families {
		if got := match(family); filepath.Dir(got) != dir {
			t.Errorf("%s (%q) matches %s, not our font in %s", name, family, got, dir)
		}
	}
	if got := match("DejaVu Sans"); strings.HasPrefix(got, dir) {
		t.Errorf("DejaVu Sans matches %s: the system's fonts are gone", got)
	}
}
