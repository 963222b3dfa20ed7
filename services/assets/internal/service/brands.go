package service

import (
	"context"
	"errors"
	"image"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/media/imageinput"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/s3store"
	"hookline.dev/pkg/platform/safefetch"
	"hookline.dev/services/assets/internal/brand"
	"hookline.dev/services/assets/internal/style"
)

// BrandStore keeps brands. Every method may also return a database
// failure.
type BrandStore interface {
	// InsertBrand stores b with the events mk builds.
	InsertBrand(ctx context.Context, b brand.Brand, mk Events[brand.Brand]) error
	// Brand errors: brand.ErrNotFound (also another organization's).
	Brand(ctx context.Context, orgID, id string) (brand.Brand, error)
	// Brands returns a page, newest first, and the total.
	Brands(ctx context.Context, orgID string, offset, limit int) ([]brand.Brand, int, error)
	// UpdateBrand writes what change makes of the brand, under a row lock,
	// with mk's events, and returns the brand before and after. Errors:
	// brand.ErrNotFound, or change's.
	UpdateBrand(ctx context.Context, orgID, id string, change func(brand.Brand) (brand.Brand, error), mk Events[brand.Brand]) (before, after brand.Brand, err error)
	// DeleteBrand removes a brand with mk's events and returns it. Errors:
	// brand.ErrNotFound.
	DeleteBrand(ctx context.Context, orgID, id string, mk Events[brand.Brand]) (brand.Brand, error)
}

// logoBudget bounds the time an import spends trying logo candidates.
const logoBudget = 15 * time.Second

func logoKey(orgID, id, rev string, img imageinput.Image) string {
	p := s3store.OrgPrefix(orgID) + "brands/" + id + "/"
	if rev != "" {
		p += rev + "/"
	}
	return p + "logo." + img.Ext()
}

func (s *Service) brandEvent(ctx context.Context, typ string) Events[brand.Brand] {
	return func(b brand.Brand) ([]events.Envelope, error) {
		return newEvent(ctx, typ, b.OrgID, s.brandPayload(b))
	}
}

// brandPayload is the brand as its created and updated events (and a
// records answer) describe it.
func (s *Service) brandPayload(b brand.Brand) events.BrandChanged {
	return events.BrandChanged{BrandID: b.ID, Name: b.Name, Colors: b.Colors, LogoURL: s.URL(b.LogoKey), Fonts: b.Fonts}
}

// brandChange is the prepared effect of a create or patch: fields to set
// and the logo object to write.
type brandChange struct {
	name    *string
	colors  *[]string
	fonts   *[]string
	domain  *string
	logo    *imageinput.Image // nil: logo unchanged (or removed, see dropLogo)
	dropLog bool
}

// prepareBrand loads the logo or imports the site; nothing is written. A
// patch that re-imports keeps the brand's name unless one is sent.
func (s *Service) prepareBrand(ctx context.Context, orgID string, v brand.Valid, patch bool) (brandChange, error) {
	c := brandChange{name: v.Name, colors: v.Colors, fonts: v.Fonts}
	if v.Import != nil {
		imp, logo, err := s.importSite(ctx, orgID, *v.Import, v.Name)
		if err != nil {
			return c, err
		}
		c.colors, c.fonts, c.logo = &imp.Colors, &imp.Fonts, logo
		if !patch || v.Name != nil {
			c.name = &imp.Name
		}
		c.dropLog = logo == nil
		c.domain = &v.Import.Host
		return c, nil
	}
	if v.LogoURL != nil {
		if *v.LogoURL == "" {
			c.dropLog = true
			return c, nil
		}
		img, err := s.Images.Load(ctx, orgID, "logoUrl", *v.LogoURL)
		if err != nil {
			return c, err
		}
		c.logo = &img
	}
	return c, nil
}

// importSite reads a website's brand: its page (theme-color, icons,
// og:image, fonts), its web manifest (colours, name, icons) and the first
// logo candidate that verifies as an image, whose palette adds colours.
// Every fetch goes through the safe fetcher.
func (s *Service) importSite(ctx context.Context, orgID string, site brand.Site, name *string) (brand.Imported, *imageinput.Image, error) {
	var page *safefetch.Response
	var lastErr error
	for _, u := range site.URLs {
		resp, err := s.Fetcher.Get(ctx, u)
		if err == nil {
			page = resp
			break
		}
		lastErr = err
		if ctx.Err() != nil {
			return brand.Imported{}, nil, ctx.Err()
		}
		if errors.Is(err, safefetch.ErrForbiddenAddress) || errors.Is(err, safefetch.ErrInvalidURL) {
			break // another scheme would be refused alike
		}
	}
	if page == nil {
		return brand.Imported{}, nil, apierr.Field("domain", site.URLs[0]+": "+imageinput.FetchReason(lastErr))
	}
	p := brand.ParsePage(page.Body, page.URL)
	var man brand.Manifest
	if p.ManifestURL != "" {
		// A broken manifest is not the user's fault; the import goes on
		// with what the page offers.
		if resp, err := s.Fetcher.Get(ctx, p.ManifestURL); err == nil {
			man = brand.ParseManifest(resp.Body, resp.URL)
		} else {
			s.log().DebugContext(ctx, "brand import: manifest not usable", "url", p.ManifestURL, "err", err)
		}
	}
	// Logo candidates share one time budget: a site serving slow icons
	// yields a brand without a logo rather than a request that hangs.
	lctx, cancel := context.WithTimeout(ctx, logoBudget)
	defer cancel()
	var logo *imageinput.Image
	for _, cand := range brand.LogoCandidates(p, man, page.URL) {
		img, err := s.Images.Load(lctx, orgID, "domain", cand)
		if err == nil {
			logo = &img
			break
		}
		if ctx.Err() != nil {
			return brand.Imported{}, nil, ctx.Err()
		}
		if lctx.Err() != nil {
			break
		}
		if !apierr.Is(err, apierr.InvalidRequest) {
			return brand.Imported{}, nil, err
		}
	}
	var swatches []brand.Swatch
	if logo != nil {
		if prof, err := style.Analyze([]image.Image{logo.Img}, style.ProfileSeed); err == nil {
			for _, sw := range prof.Palette {
				swatches = append(swatches, brand.Swatch{Hex: sw.Hex, Weight: sw.Weight})
			}
		}
	}
	imp, ok := brand.Compose(name, site, p, man, swatches)
	if !ok {
		return brand.Imported{}, nil, apierr.Field("domain", site.Host+": no brand colours found (no theme-color, manifest colours or usable logo)")
	}
	return imp, logo, nil
}

// CreateBrand creates a brand by hand or by importing a website.
func (s *Service) CreateBrand(ctx context.Context, orgID string, d brand.Draft) (brand.Brand, error) {
	v, err := d.ValidateCreate()
	if err != nil {
		return brand.Brand{}, err
	}
	c, err := s.prepareBrand(ctx, orgID, v, false)
	if err != nil {
		return brand.Brand{}, err
	}
	now := s.now()
	b := brand.Brand{ID: uuid.NewString(), OrgID: orgID, CreatedAt: now, UpdatedAt: now}
	apply(&b, c)
	if c.logo != nil {
		b.LogoKey = logoKey(orgID, b.ID, "", *c.logo)
		if err := s.putAll(ctx, []blob{{key: b.LogoKey, data: c.logo.Data, contentType: c.logo.ContentType()}}); err != nil {
			return brand.Brand{}, err
		}
	}
	if err := s.Store.InsertBrand(ctx, b, s.brandEvent(ctx, events.AssetsBrandCreated)); err != nil {
		s.removeAll(ctx, []string{b.LogoKey})
		return brand.Brand{}, err
	}
	return b, nil
}

func apply(b *brand.Brand, c brandChange) {
	if c.name != nil {
		b.Name = *c.name
	}
	if c.colors != nil {
		b.Colors = *c.colors
	}
	if c.fonts != nil {
		b.Fonts = *c.fonts
	}
	if c.domain != nil {
		b.Domain = *c.domain
	} else if c.colors != nil || c.logo != nil || c.dropLog {
		// Edited by hand: no longer what the site says.
		b.Domain = ""
	}
	if c.dropLog {
		b.LogoKey = ""
	}
}

// Brand returns one brand of the organization.
func (s *Service) Brand(ctx context.Context, orgID, id string) (brand.Brand, error) {
	return s.Store.Brand(ctx, orgID, id)
}

// Brands lists the organization's brands, newest first.
func (s *Service) Brands(ctx context.Context, orgID string, offset, limit int) ([]brand.Brand, int, error) {
	return s.Store.Brands(ctx, orgID, offset, limit)
}

// UpdateBrand changes a brand; a domain re-imports it.
func (s *Service) UpdateBrand(ctx context.Context, orgID, id string, d brand.Draft) (brand.Brand, error) {
	v, err := d.ValidatePatch()
	if err != nil {
		return brand.Brand{}, err
	}
	if v.Import != nil || (v.LogoURL != nil && *v.LogoURL != "") {
		if _, err := s.Store.Brand(ctx, orgID, id); err != nil {
			return brand.Brand{}, err
		}
	}
	c, err := s.prepareBrand(ctx, orgID, v, true)
	if err != nil {
		return brand.Brand{}, err
	}
	newKey := ""
	if c.logo != nil {
		newKey = logoKey(orgID, id, revision(), *c.logo)
		if err := s.putAll(ctx, []blob{{key: newKey, data: c.logo.Data, contentType: c.logo.ContentType()}}); err != nil {
			return brand.Brand{}, err
		}
	}
	before, after, err := s.Store.UpdateBrand(ctx, orgID, id, func(b brand.Brand) (brand.Brand, error) {
		apply(&b, c)
		if newKey != "" {
			b.LogoKey = newKey
		}
		b.UpdatedAt = s.now()
		return b, nil
	}, s.brandEvent(ctx, events.AssetsBrandUpdated))
	if err != nil {
		s.removeAll(ctx, []string{newKey})
		return brand.Brand{}, err
	}
	if before.LogoKey != after.LogoKey {
		s.removeAll(ctx, []string{before.LogoKey})
	}
	return after, nil
}

// DeleteBrand deletes a brand and its stored logo.
func (s *Service) DeleteBrand(ctx context.Context, orgID, id string) error {
	b, err := s.Store.DeleteBrand(ctx, orgID, id, func(b brand.Brand) ([]events.Envelope, error) {
		return newEvent(ctx, events.AssetsBrandDeleted, b.OrgID, events.BrandDeleted{BrandID: b.ID})
	})
	if err != nil {
		return err
	}
	s.removeAll(ctx, []string{b.LogoKey})
	return nil
}
