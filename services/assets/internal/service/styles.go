package service

import (
	"context"
	"errors"
	"fmt"
	"image"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/s3store"
	"hookline.dev/services/assets/internal/style"
)

// StyleStore keeps styles. Every method may also return a database
// failure.
type StyleStore interface {
	// InsertStyle stores st with the events mk builds.
	InsertStyle(ctx context.Context, st style.Style, mk Events[style.Style]) error
	// Style errors: style.ErrNotFound (also another organization's).
	Style(ctx context.Context, orgID, id string) (style.Style, error)
	// Styles returns a page, newest first, and the total.
	Styles(ctx context.Context, orgID string, offset, limit int) ([]style.Style, int, error)
	// UpdateStyle writes what change makes of the style, under a row lock,
	// with mk's events, and returns the style before and after. Errors:
	// style.ErrNotFound, or change's.
	UpdateStyle(ctx context.Context, orgID, id string, change func(style.Style) (style.Style, error), mk Events[style.Style]) (before, after style.Style, err error)
	// DeleteStyle removes a style with mk's events and returns it. Errors:
	// style.ErrNotFound.
	DeleteStyle(ctx context.Context, orgID, id string, mk Events[style.Style]) (style.Style, error)
}

type stylePrepared struct {
	blobs   []blob
	keys    []string
	profile style.Profile
}

// prepareStyle verifies and analyses the references; nothing is written.
func (s *Service) prepareStyle(ctx context.Context, orgID, prefix string, urls []string) (stylePrepared, error) {
	imgs, err := s.Images.LoadAll(ctx, orgID, "referenceImageUrls", urls)
	if err != nil {
		return stylePrepared{}, err
	}
	decoded := make([]image.Image, len(imgs))
	var p stylePrepared
	for i, img := range imgs {
		decoded[i] = img.Img
		key := fmt.Sprintf("%s%d.%s", prefix, i, img.Ext())
		p.keys = append(p.keys, key)
		p.blobs = append(p.blobs, blob{key: key, data: img.Data, contentType: img.ContentType()})
	}
	if p.profile, err = style.Analyze(decoded, style.ProfileSeed); err != nil {
		// Verified images always have pixels; only (nearly) transparent
		// references get here. Name them.
		if !errors.Is(err, style.ErrEmptyImage) {
			return stylePrepared{}, err
		}
		f := apierr.Fields{}
		for i, img := range decoded {
			if _, err := style.Analyze([]image.Image{img}, style.ProfileSeed); err != nil {
				f.Add(fmt.Sprintf("referenceImageUrls[%d]", i), urls[i]+": image has no visible (opaque) pixels")
			}
		}
		return stylePrepared{}, f.Err()
	}
	return p, nil
}

func stylePrefix(orgID, id, rev string) string {
	p := s3store.OrgPrefix(orgID) + "styles/" + id + "/"
	if rev != "" {
		p += rev + "/"
	}
	return p
}

// StyleProfileEvent converts a profile to its event form.
func StyleProfileEvent(p style.Profile) events.StyleProfile {
	out := events.StyleProfile{Brightness: p.Brightness, Contrast: p.Contrast, Saturation: p.Saturation, Warmth: p.Warmth}
	out.Palette = make([]events.Swatch, len(p.Palette))
	for i, sw := range p.Palette {
		out.Palette[i] = events.Swatch{Hex: sw.Hex, Weight: sw.Weight}
	}
	return out
}

func (s *Service) styleEvent(ctx context.Context, typ string) Events[style.Style] {
	return func(st style.Style) ([]events.Envelope, error) {
		return newEvent(ctx, typ, st.OrgID, s.stylePayload(st))
	}
}

// stylePayload is the style as its created and updated events (and a
// records answer) describe it.
func (s *Service) stylePayload(st style.Style) events.StyleChanged {
	return events.StyleChanged{
		StyleID: st.ID, Name: st.Name, Description: st.Description,
		ReferenceImageURLs: s.URLs(st.ReferenceKeys), Profile: StyleProfileEvent(st.Profile),
	}
}

// CreateStyle analyses 1..10 references into a stored profile.
func (s *Service) CreateStyle(ctx context.Context, orgID string, d style.Draft) (style.Style, error) {
	d, err := d.Validate()
	if err != nil {
		return style.Style{}, err
	}
	id := uuid.NewString()
	p, err := s.prepareStyle(ctx, orgID, stylePrefix(orgID, id, ""), d.ReferenceImageURLs)
	if err != nil {
		return style.Style{}, err
	}
	if err := s.putAll(ctx, p.blobs); err != nil {
		return style.Style{}, err
	}
	now := s.now()
	st := style.Style{ID: id, OrgID: orgID, Name: d.Name, Description: d.Description, ReferenceKeys: p.keys, Profile: p.profile, CreatedAt: now, UpdatedAt: now}
	if err := s.Store.InsertStyle(ctx, st, s.styleEvent(ctx, events.AssetsStyleCreated)); err != nil {
		s.removeAll(ctx, p.keys)
		return style.Style{}, err
	}
	return st, nil
}

// Style returns one style of the organization.
func (s *Service) Style(ctx context.Context, orgID, id string) (style.Style, error) {
	return s.Store.Style(ctx, orgID, id)
}

// Styles lists the organization's styles, newest first.
func (s *Service) Styles(ctx context.Context, orgID string, offset, limit int) ([]style.Style, int, error) {
	return s.Store.Styles(ctx, orgID, offset, limit)
}

// UpdateStyle changes a style; new references are analysed again.
func (s *Service) UpdateStyle(ctx context.Context, orgID, id string, p style.Patch) (style.Style, error) {
	p, err := p.Validate()
	if err != nil {
		return style.Style{}, err
	}
	var prep *stylePrepared
	if p.ReferenceImageURLs != nil {
		if _, err := s.Store.Style(ctx, orgID, id); err != nil {
			return style.Style{}, err
		}
		pp, err := s.prepareStyle(ctx, orgID, stylePrefix(orgID, id, revision()), *p.ReferenceImageURLs)
		if err != nil {
			return style.Style{}, err
		}
		if err := s.putAll(ctx, pp.blobs); err != nil {
			return style.Style{}, err
		}
		prep = &pp
	}
	before, after, err := s.Store.UpdateStyle(ctx, orgID, id, func(st style.Style) (style.Style, error) {
		if p.Name != nil {
			st.Name = *p.Name
		}
		if p.Description != nil {
			st.Description = *p.Description
		}
		if prep != nil {
			st.ReferenceKeys, st.Profile = prep.keys, prep.profile
		}
		st.UpdatedAt = s.now()
		return st, nil
	}, s.styleEvent(ctx, events.AssetsStyleUpdated))
	if err != nil {
		if prep != nil {
			s.removeAll(ctx, prep.keys)
		}
		return style.Style{}, err
	}
	s.removeAll(ctx, replaced(before.ReferenceKeys, after.ReferenceKeys))
	return after, nil
}

// DeleteStyle deletes a style and its stored references.
func (s *Service) DeleteStyle(ctx context.Context, orgID, id string) error {
	st, err := s.Store.DeleteStyle(ctx, orgID, id, func(st style.Style) ([]events.Envelope, error) {
		return newEvent(ctx, events.AssetsStyleDeleted, st.OrgID, events.StyleDeleted{StyleID: st.ID})
	})
	if err != nil {
		return err
	}
	s.removeAll(ctx, st.ReferenceKeys)
	return nil
}
