// Package upload holds the rules of presigned uploads: which files may be
// uploaded (JPEG or PNG, 1 byte to 5 MB), how a client's file name becomes
// part of an object key, and where uploads live in the bucket.
package upload

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/textcheck"
)

// Limits.
const (
	// MaxFileSize is 5 MB, the spec's limit for uploaded images; it equals
	// imagecheck.MaxBytes, which enforces it again on first use.
	MaxFileSize = 5 << 20
	// MaxNameLength bounds the sanitised name inside the key.
	MaxNameLength = 80
	// MaxRawNameLength bounds the fileName a client may send.
	MaxRawNameLength = 255
	// MaxFilesPerRequest bounds POST /faces/upload-urls.
	MaxFilesPerRequest = 10
)

// types maps the accepted media types to the key's extension.
var types = map[string]string{
	"image/jpeg": "jpg",
	"image/png":  "png",
}

// Request is one file a client wants to upload.
type Request struct {
	FileName string
	FileType string
	FileSize int64
}

// Plan is a validated request: the media type and length to sign and the
// key to sign it for (without organization and id, see Key).
type Plan struct {
	ContentType string
	Size        int64  // the exact length the upload must have
	Name        string // sanitised, without extension
	Ext         string
}

// Validate checks r and records failures in f under prefix+field names
// (prefix is "" or e.g. "files[2]."). It returns the plan when r is valid.
func (r Request) Validate(f apierr.Fields, prefix string) Plan {
	var p Plan
	name := strings.TrimSpace(r.FileName)
	switch {
	case !textcheck.Check(f, prefix+"fileName", name, false):
	case name == "":
		f.Add(prefix+"fileName", "is required")
	case utf8.RuneCountInString(name) > MaxRawNameLength:
		f.Add(prefix+"fileName", fmt.Sprintf("must be at most %d characters", MaxRawNameLength))
	}
	ct := strings.ToLower(strings.TrimSpace(r.FileType))
	ext, ok := types[ct]
	if !ok {
		f.Add(prefix+"fileType", "must be image/jpeg or image/png")
	}
	if r.FileSize < 1 || r.FileSize > MaxFileSize {
		f.Add(prefix+"fileSize", fmt.Sprintf("must be from 1 to %d bytes (5 MB)", MaxFileSize))
	}
	p.ContentType, p.Size, p.Ext, p.Name = ct, r.FileSize, ext, Sanitize(name)
	return p
}

// Sanitize turns a client's file name into a safe key segment: the base
// name without directories or extension, lower case, with every run of
// characters outside [a-z0-9-_] replaced by one "-", trimmed of leading and
// trailing separators and cut to MaxNameLength. An empty result is
// "upload".
func Sanitize(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = path.Base(name)
	if ext := path.Ext(name); ext != "" && ext != name {
		name = strings.TrimSuffix(name, ext)
	}
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(name) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_', c == '-':
			b.WriteRune(c)
			dash = false
		default:
			if !dash {
				b.WriteByte('-')
				dash = true
			}
		}
	}
	s := strings.Trim(b.String(), "-_")
	if len(s) > MaxNameLength {
		s = strings.TrimRight(s[:MaxNameLength], "-_")
	}
	if s == "" {
		return "upload"
	}
	return s
}

// Key is where an upload is stored below the organization's uploads
// prefix: <prefix><id>-<name>.<ext>. id is a fresh uuid, so names may
// repeat and keys stay unguessable.
func Key(uploadPrefix, id string, p Plan) string {
	return uploadPrefix + id + "-" + p.Name + "." + p.Ext
}
