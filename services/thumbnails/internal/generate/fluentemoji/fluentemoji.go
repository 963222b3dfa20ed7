// Package fluentemoji is the local compositor's object art: Microsoft's
// Fluent Emoji in 3D (MIT; the npm package @lobehub/fluent-emoji-3d, one
// 256×256 WebP a code point) found by English keywords (emojibase-data's
// en/data.json, MIT: each emoji's label and tags). scripts/deps.sh emoji
// installs both into one directory; nothing is fetched at run time.
//
// A noun names an emoji by, best first: the package's aliases (the nouns
// thumbnails use most, pinned to the emoji a designer would pick), an
// emoji whose label is the noun, whose tag is the noun, or whose label
// ends with it; ties go to the emoji listed first.
package fluentemoji

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Library is the installed art and its keywords. It is safe for
// concurrent use.
type Library struct {
	dir   string
	files map[string]string // noun → file under assets/
	score map[string]int    // how well it names it: 4 and up, by its label or an alias
	mu    sync.Mutex
	data  map[string][]byte // file → its bytes, once read
}

// entry is one emoji of emojibase's data.json.
type entry struct {
	Label   string   `json:"label"`
	Hexcode string   `json:"hexcode"`
	Tags    []string `json:"tags"`
	Group   *int     `json:"group"`
	Order   int      `json:"order"`
}

// groups are emojibase's groups of things: animals and nature, food and
// drink, travel and places, activities, objects, symbols (faces, people,
// components and flags are not objects).
var groups = map[int]bool{3: true, 4: true, 5: true, 6: true, 7: true, 8: true}

// aliases pin the commonest nouns of thumbnails to an emoji (a
// hexcode): their keyword matches are many, or none.
var aliases = map[string]string{
	"money": "1f4b0", "cash": "1f4b5", "dollar": "1f4b5", "moneybag": "1f4b0", "money-bag": "1f4b0",
	"phone": "1f4f1", "smartphone": "1f4f1", "iphone": "1f4f1", "android": "1f4f1",
	"computer": "1f4bb", "pc": "1f5a5", "monitor": "1f5a5", "tv": "1f4fa",
	"controller": "1f3ae", "gamepad": "1f3ae", "console": "1f3ae", "joystick": "1f579",
	"car": "1f697", "house": "1f3e0", "home": "1f3e0", "fire": "1f525", "flame": "1f525",
	"chart": "1f4c8", "graph": "1f4c8", "stock": "1f4c8", "idea": "1f4a1", "bulb": "1f4a1", "lightbulb": "1f4a1",
	"brain": "1f9e0", "heart": "2764", "skull": "1f480", "ghost": "1f47b", "alien": "1f47d", "robot": "1f916",
	"coffee": "2615", "tea": "1f375", "plant": "1fab4", "tree": "1f333", "flower": "1f33a",
	"gold": "1fa99", "coin": "1fa99", "bitcoin": "1fa99", "diamond": "1f48e", "gem": "1f48e",
	"cat": "1f408", "dog": "1f415", "kitten": "1f431", "puppy": "1f436", "bird": "1f426",
	"clock": "23f0", "alarm": "23f0", "watch": "231a", "book": "1f4d5", "notebook": "1f4d3",
	"warning": "26a0", "stop": "1f6d1", "question": "2753", "exclamation": "2757", "check": "2705", "cross": "274c",
	"star": "2b50", "sun": "2600", "moon": "1f319", "earth": "1f30d", "globe": "1f30d", "planet": "1fa90",
	"lightning": "26a1", "snow": "2744", "snowflake": "2744", "cloud": "2601",
	"gift": "1f381", "present": "1f381", "box": "1f4e6", "package": "1f4e6", "mail": "1f4e7", "email": "1f4e7",
	"pizza": "1f355", "burger": "1f354", "hamburger": "1f354", "ball": "26bd", "football": "1f3c8", "soccer": "26bd",
	"key": "1f511", "lock": "1f512", "camera": "1f4f7", "microphone": "1f3a4", "mic": "1f3a4",
	"headphone": "1f3a7", "headset": "1f3a7", "weight": "1f3cb", "dumbbell": "1f3cb",
	"plane": "2708", "airplane": "2708", "bike": "1f6b2", "bicycle": "1f6b2", "ship": "1f6a2", "boat": "26f5",
	"pill": "1f48a", "medicine": "1f48a", "syringe": "1f489", "bomb": "1f4a3", "crown": "1f451", "trophy": "1f3c6",
	"credit-card": "1f4b3", "wallet": "1f45b", "bank": "1f3e6", "battery": "1f50b", "chip": "1f4be",
	"egg": "1f95a", "cake": "1f382", "wine": "1f377", "beer": "1f37a", "water": "1f4a7", "rose": "1f339",
	"ticket": "1f3ab", "glasses": "1f453", "sunglasses": "1f576", "shoe": "1f45f", "sneaker": "1f45f", "hat": "1f3a9",
	"drone": "1f681", "tablet": "1f4f1", "ipad": "1f4f1", "keyboard": "2328", "mouse": "1f5b1", "television": "1f4fa",
	"magnifying-glass": "1f50d", "calendar": "1f4c5", "hourglass": "23f3", "pencil": "270f", "pen": "1f58a",
	"tool": "1f6e0", "toolbox": "1f9f0", "hammer": "1f528", "wrench": "1f527", "paintbrush": "1f58c", "brush": "1f58c",
}

// ErrMissing is returned by Open when dir holds no art.
var ErrMissing = errors.New("fluentemoji: the art is not installed")

// Open reads the library installed in dir. Errors: ErrMissing (wrapped)
// when dir has no data.json or no assets, or a fault reading them.
func Open(dir string) (*Library, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "data.json")) //nolint:gosec // G304: the operator's configured directory
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: no %s (scripts/deps.sh emoji)", ErrMissing, filepath.Join(dir, "data.json"))
	}
	if err != nil {
		return nil, fmt.Errorf("fluentemoji: %w", err)
	}
	names, err := os.ReadDir(filepath.Join(dir, "assets"))
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("%w: no art in %s (scripts/deps.sh emoji)", ErrMissing, filepath.Join(dir, "assets"))
	}
	have := make(map[string]string, len(names))
	for _, n := range names {
		code := strings.TrimSuffix(n.Name(), ".webp")
		have[code] = n.Name()
		have[strings.TrimSuffix(code, "-fe0f")] = n.Name()
	}
	var entries []entry
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("fluentemoji: data.json: %w", err)
	}
	l := &Library{dir: dir, files: map[string]string{}, score: map[string]int{}, data: map[string][]byte{}}
	score := l.score
	consider := func(noun, file string, s int) {
		if file != "" && s > score[noun] {
			score[noun], l.files[noun] = s, file
		}
	}
	for _, e := range entries {
		if e.Group == nil || !groups[*e.Group] {
			continue
		}
		file := have[strings.ToLower(e.Hexcode)]
		label := strings.ToLower(e.Label)
		words := strings.Fields(label)
		consider(label, file, 4)
		for _, t := range e.Tags {
			consider(strings.ToLower(t), file, 2)
		}
		if len(words) == 2 {
			consider(words[1], file, 1)
		}
	}
	for noun, code := range aliases {
		if f, ok := have[code]; ok {
			score[noun], l.files[noun] = 9, f
		}
	}
	return l, nil
}

// Names reports whether noun (lower case, singular) is an emoji's name
// (its label or an alias): a noun a prompt may name it by. Find also
// matches the emoji's tags, for nouns known to be objects.
func (l *Library) Names(noun string) bool { return l.score[noun] >= 4 }

// Find is the WebP file of noun's emoji: its name (the code points) and
// bytes. ok is false when noun names none.
func (l *Library) Find(noun string) (name string, data []byte, ok bool, err error) {
	f, ok := l.files[noun]
	if !ok {
		return "", nil, false, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if d, ok := l.data[f]; ok {
		return f, d, true, nil
	}
	d, err := os.ReadFile(filepath.Join(l.dir, "assets", f)) //nolint:gosec // G304: a file name listed from the directory at Open
	if err != nil {
		return "", nil, false, fmt.Errorf("fluentemoji: %w", err)
	}
	l.data[f] = d
	return f, d, true, nil
}
