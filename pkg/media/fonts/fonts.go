// Package fonts embeds the fonts Hookline draws text with, so that a
// thumbnail or a caption renders the same on every host and in every
// container, whatever fonts the machine has installed. The files are OFL
// fonts copied from Debian's fonts-bebas-neue and fonts-inter packages;
// their licences sit next to them (LICENSE-*.txt).
package fonts

import (
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/image/font/opentype"
)

// Name is a font's name as layouts and callers spell it.
type Name string

// The embedded fonts.
const (
	// Display is Bebas Neue: a condensed, all-capitals display face for
	// headlines that must read at thumbnail size.
	Display Name = "display"
	// Sans is Inter Bold: a neutral sans for sublines, badges and labels.
	Sans Name = "sans"
	// Heavy is Inter Display Black: a wide, very heavy sans for punchy
	// headlines in lower or mixed case.
	Heavy Name = "heavy"
)

// ErrUnknown is returned by Load for a name that is not one of the
// embedded fonts.
var ErrUnknown = errors.New("fonts: unknown font")

//go:embed BebasNeue-Regular.otf Inter-Bold.otf InterDisplay-Black.otf
var files embed.FS

var fileOf = map[Name]string{
	Display: "BebasNeue-Regular.otf",
	Sans:    "Inter-Bold.otf",
	Heavy:   "InterDisplay-Black.otf",
}

// Names lists the embedded fonts in a stable order.
func Names() []Name { return []Name{Display, Sans, Heavy} }

// Known reports whether name is an embedded font.
func Known(name string) bool {
	_, ok := fileOf[Name(name)]
	return ok
}

type parsed struct {
	once sync.Once
	font *opentype.Font
	err  error
}

// cache parses each file once per process: the parsed font is read-only
// and safe for concurrent use (each drawing makes its own font.Face).
var cache = func() map[Name]*parsed {
	m := make(map[Name]*parsed, len(fileOf))
	for n := range fileOf {
		m[n] = &parsed{}
	}
	return m
}()

// Load returns the parsed font called name. Errors: ErrUnknown, or a
// parse failure of an embedded file (a broken build).
func Load(name Name) (*opentype.Font, error) {
	p, ok := cache[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknown, name)
	}
	p.once.Do(func() {
		data, err := files.ReadFile(fileOf[name])
		if err != nil {
			p.err = fmt.Errorf("fonts: read %s: %w", name, err)
			return
		}
		p.font, p.err = opentype.Parse(data)
		if p.err != nil {
			p.err = fmt.Errorf("fonts: parse %s: %w", name, p.err)
		}
	})
	return p.font, p.err
}

// Families are the family names the font files declare, for renderers
// that pick fonts by name (libass, through WriteDir).
var Families = map[Name]string{Display: "Bebas Neue", Sans: "Inter", Heavy: "Inter Display"}

// WriteDir writes the embedded font files into dir, for a renderer that
// reads fonts from a directory (ffmpeg's subtitles filter, fontsdir).
func WriteDir(dir string) error {
	for _, f := range fileOf {
		b, err := files.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			return fmt.Errorf("fonts: %w", err)
		}
	}
	return nil
}
