package httpx

import (
	"context"
	"net/http"
	"strconv"

	"hookline.dev/pkg/platform/apierr"
)

// Page is a validated page request.
type Page struct {
	Page  int
	Limit int
}

// Offset is the number of items before this page.
func (p Page) Offset() int { return (p.Page - 1) * p.Limit }

// Pagination defaults and bounds from the spec.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// ParsePage reads page (≥1, default 1) and limit (1..100, default 20);
// anything else, including a repeated or non-integer value, is a 400.
func ParsePage(r *http.Request) (Page, error) {
	q := r.URL.Query()
	p := Page{Page: 1, Limit: DefaultLimit}
	fields := apierr.Fields{}
	if v, ok := q["page"]; ok {
		n, err := strconv.Atoi(v[0])
		fields.Check(len(v) == 1 && err == nil && n >= 1, "page", "must be an integer ≥ 1")
		p.Page = n
	}
	if v, ok := q["limit"]; ok {
		n, err := strconv.Atoi(v[0])
		fields.Check(len(v) == 1 && err == nil && n >= 1 && n <= MaxLimit, "limit", "must be an integer from 1 to 100")
		p.Limit = n
	}
	// Guard the offset arithmetic against overflow from huge page numbers.
	fields.Check(p.Page <= 1_000_000_000/MaxLimit, "page", "is too large")
	if err := fields.Err(); err != nil {
		return Page{}, err
	}
	return p, nil
}

// Pagination is the pagination object of a list response.
type Pagination struct {
	Page    int  `json:"page"`
	Limit   int  `json:"limit"`
	Total   int  `json:"total"`
	HasMore bool `json:"hasMore"`
}

type pageEnvelope struct {
	Data       any        `json:"data"`
	Pagination Pagination `json:"pagination"`
}

// List writes {data: items, pagination} for a page of a list of total items.
// items must marshal to a JSON array; a nil slice is written as [].
func List[T any](w http.ResponseWriter, items []T, p Page, total int) error {
	if items == nil {
		items = []T{}
	}
	writeJSON(w, http.StatusOK, pageEnvelope{
		Data:       items,
		Pagination: Pagination{Page: p.Page, Limit: p.Limit, Total: total, HasMore: p.Offset()+len(items) < total},
	})
	return nil
}

// Pager fetches one page of a list and the list's total size.
type Pager[T any] func(ctx context.Context, offset, limit int) ([]T, int, error)

// ListPage answers a paginated GET: it validates page and limit, fetches
// that page, maps each item to its wire form and writes the list envelope.
func ListPage[T, D any](w http.ResponseWriter, r *http.Request, fetch Pager[T], dto func(T) D) error {
	p, err := ParsePage(r)
	if err != nil {
		return err
	}
	items, total, err := fetch(r.Context(), p.Offset(), p.Limit)
	if err != nil {
		return err
	}
	out := make([]D, len(items))
	for i, it := range items {
		out[i] = dto(it)
	}
	return List(w, out, p, total)
}
