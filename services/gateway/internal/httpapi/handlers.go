package httpapi

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/services/gateway/internal/idempotency"
	"hookline.dev/services/gateway/internal/org"
)

// Request and response bodies. Times are RFC 3339 UTC.

type organizationDTO struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Tier      string    `json:"tier"`
	CreatedAt time.Time `json:"createdAt"`
}

type verifyOrganizationDTO struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Tier string `json:"tier"`
}

type keyDTO struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Prefix    string     `json:"prefix"`
	CreatedAt time.Time  `json:"createdAt"`
	ExpiresAt *time.Time `json:"expiresAt"`
}

// newKeyDTO is a key as shown once, at creation: the key record plus its
// organization and the secret.
type newKeyDTO struct {
	keyDTO
	OrganizationID string `json:"organizationId"`
	Key            string `json:"key"`
}

func keyOut(k org.APIKey) keyDTO {
	return keyDTO{ID: k.ID.String(), Name: k.Name, Prefix: k.Prefix, CreatedAt: utc(k.CreatedAt), ExpiresAt: utcPtr(k.ExpiresAt)}
}

type verifyDTO struct {
	Organization verifyOrganizationDTO `json:"organization"`
	Key          keyDTO                `json:"key"`
}

type grantDTO struct {
	GrantID        string `json:"grantId"`
	OrganizationID string `json:"organizationId"`
	Credits        int64  `json:"credits"`
	Kind           string `json:"kind"`
	Reason         string `json:"reason"`
	Status         string `json:"status"`
}

type adjustmentDTO struct {
	AdjustmentID   string `json:"adjustmentId"`
	OrganizationID string `json:"organizationId"`
	Credits        int64  `json:"credits"`
	Kind           string `json:"kind"`
	Reason         string `json:"reason"`
	Status         string `json:"status"`
	// Available is the organization's available credits after it.
	Available int64 `json:"available"`
}

type createOrganizationRequest struct {
	Name string `json:"name"`
	Tier string `json:"tier"`
}

type createKeyRequest struct {
	Name string `json:"name"`
	// ExpiresAt is a string so a bad timestamp is reported as a field
	// error rather than as malformed JSON.
	ExpiresAt *string `json:"expiresAt"`
}

type grantCreditsRequest struct {
	Credits int64  `json:"credits"`
	Kind    string `json:"kind"`
	Reason  string `json:"reason"`
}

func utc(t time.Time) time.Time { return t.UTC() }

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// verify answers GET /api/v1/auth/verify with the caller's organization
// and key; authentication has already happened in the middleware.
func (s *server) verify(w http.ResponseWriter, r *http.Request) error {
	id, _ := identityFrom(r.Context())
	return httpx.OK(w, verifyDTO{
		Organization: verifyOrganizationDTO{ID: id.Organization.ID.String(), Name: id.Organization.Name, Tier: id.Organization.Tier},
		Key:          keyOut(id.Key),
	})
}

func (s *server) createOrganization(w http.ResponseWriter, r *http.Request) error {
	var req createOrganizationRequest
	if err := httpx.Decode(r, &req); err != nil {
		return err
	}
	o, err := s.cfg.Orgs.CreateOrganization(r.Context(), req.Name, req.Tier)
	if err != nil {
		return err
	}
	s.cfg.Log.InfoContext(r.Context(), "organization created", "organization_id", o.ID, "tier", o.Tier)
	return httpx.Created(w, organizationDTO{ID: o.ID.String(), Name: o.Name, Tier: o.Tier, CreatedAt: utc(o.CreatedAt)})
}

func (s *server) createKey(w http.ResponseWriter, r *http.Request) error {
	orgID, err := httpx.ParseUUID("id", chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	var req createKeyRequest
	if err := httpx.Decode(r, &req); err != nil {
		return err
	}
	var expiresAt *time.Time
	if req.ExpiresAt != nil {
		t, err := time.Parse(time.RFC3339, *req.ExpiresAt)
		if err != nil {
			return apierr.Field("expiresAt", "must be an RFC 3339 timestamp")
		}
		expiresAt = &t
	}
	k, err := s.cfg.Orgs.CreateKey(r.Context(), orgID, req.Name, expiresAt)
	if err != nil {
		return err
	}
	s.cfg.Log.InfoContext(r.Context(), "api key created", "organization_id", orgID, "key_id", k.ID, "prefix", k.Prefix)
	return httpx.Created(w, newKeyDTO{keyDTO: keyOut(k.APIKey), OrganizationID: k.OrganizationID.String(), Key: k.Secret})
}

func (s *server) revokeKey(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.ParseUUID("id", chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	if err := s.cfg.Orgs.RevokeKey(r.Context(), id); err != nil {
		return err
	}
	s.cfg.Log.InfoContext(r.Context(), "api key revoked", "key_id", id)
	return httpx.NoContent(w)
}

func (s *server) grantCredits(w http.ResponseWriter, r *http.Request) error {
	orgID, err := httpx.ParseUUID("id", chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	var req grantCreditsRequest
	if err := httpx.Decode(r, &req); err != nil {
		return err
	}
	if org.CreditKind(req.Kind) == org.Adjustment {
		return s.adjustCredits(w, r, orgID, req)
	}
	g, err := s.cfg.Orgs.GrantCredits(r.Context(), orgID, req.Credits, org.CreditKind(req.Kind), req.Reason)
	if err != nil {
		return err
	}
	s.cfg.Log.InfoContext(r.Context(), "credits granted", "organization_id", orgID, "grant_id", g.ID, "credits", g.Credits, "kind", g.Kind)
	// 202: billing applies the grant asynchronously (and idempotently, by
	// grant id) when it consumes the event.
	return httpx.Data(w, http.StatusAccepted, grantDTO{
		GrantID:        g.ID.String(),
		OrganizationID: g.OrganizationID.String(),
		Credits:        g.Credits,
		Kind:           string(g.Kind),
		Reason:         g.Reason,
		Status:         "accepted",
	})
}

// adjustCredits answers kind "adjustment": billing applies it while the
// request waits, so the answer is 200 with the new available credits, or a
// 400 for a debit below zero.
func (s *server) adjustCredits(w http.ResponseWriter, r *http.Request, orgID uuid.UUID, req grantCreditsRequest) error {
	a, err := s.cfg.Orgs.AdjustCredits(r.Context(), orgID, req.Credits, req.Reason, r.Header.Get(idempotency.Header))
	if err != nil {
		return err
	}
	s.cfg.Log.InfoContext(r.Context(), "credits adjusted", "organization_id", orgID, "adjustment_id", a.ID, "credits", a.Credits, "available", a.Available)
	return httpx.OK(w, adjustmentDTO{
		AdjustmentID:   a.ID.String(),
		OrganizationID: a.OrganizationID.String(),
		Credits:        a.Credits,
		Kind:           string(org.Adjustment),
		Reason:         a.Reason,
		Status:         "applied",
		Available:      a.Available,
	})
}
