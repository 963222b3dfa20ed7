package hookline

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
)

// Page is one page of a list: the items, newest first, and where the page
// sits in the whole list.
type Page[T any] struct {
	Data       []T        `json:"data"`
	Pagination Pagination `json:"pagination"`
}

// Pagination locates a page.
type Pagination struct {
	Page  int `json:"page"`
	Limit int `json:"limit"`
	// Total counts the items of the whole list.
	Total int `json:"total"`
	// HasMore says whether a later page has items.
	HasMore bool `json:"hasMore"`
}

// ListParams selects a page: Page from 1 (0 means 1), Limit 1..100 (0
// means the API's default, 20).
type ListParams struct {
	Page  int `query:"page"`
	Limit int `query:"limit"`
}

// pageParams is a parameter struct that embeds ListParams.
type pageParams interface{ listParams() *ListParams }

func (p *ListParams) listParams() *ListParams { return p }

// queryOf encodes the non-zero fields tagged `query:"name"` of a
// parameter struct (embedded structs included).
func queryOf(params any) url.Values {
	q := url.Values{}
	v := reflect.ValueOf(params)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return q
		}
		v = v.Elem()
	}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		for i := range v.NumField() {
			f, fv := v.Type().Field(i), v.Field(i)
			if f.Anonymous && fv.Kind() == reflect.Struct {
				walk(fv)
				continue
			}
			name := f.Tag.Get("query")
			if name == "" || fv.IsZero() {
				continue
			}
			switch fv.Kind() {
			case reflect.Int, reflect.Int64:
				q.Set(name, strconv.FormatInt(fv.Int(), 10))
			case reflect.String:
				q.Set(name, fv.String())
			case reflect.Bool:
				q.Set(name, strconv.FormatBool(fv.Bool()))
			}
		}
	}
	walk(v)
	return q
}

// listPage fetches one page of a list.
func listPage[T any](ctx context.Context, c *Client, path string, params any, admin bool, opts []RequestOption) (*Page[T], error) {
	var p Page[T]
	if err := c.do(ctx, call{method: http.MethodGet, path: path, query: queryOf(params), admin: admin}, &p, opts); err != nil {
		return nil, err
	}
	return &p, nil
}

// all walks a list from the page params name (the first page when nil)
// to its end, fetching each page when the previous one is used up. An
// error is yielded once, as the last pair. Items added while walking a
// newest-first list shift the pages, so an item may be seen twice;
// callers that mind key on the id.
func all[T any, P any, PP interface {
	*P
	pageParams
}](ctx context.Context, params PP, fetch func(context.Context, PP) (*Page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var p P
		cur := PP(&p)
		if params != nil {
			p = *params
		}
		lp := cur.listParams()
		if lp.Page < 1 {
			lp.Page = 1
		}
		for {
			page, err := fetch(ctx, cur)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range page.Data {
				if !yield(it, nil) {
					return
				}
			}
			if !page.Pagination.HasMore || len(page.Data) == 0 {
				return
			}
			lp.Page++
		}
	}
}
