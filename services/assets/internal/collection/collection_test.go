package collection

import (
	"errors"
	"strings"
	"testing"

	"hookline.dev/pkg/platform/apierr"
)

func TestThumbnailIDs(t *testing.T) {
	a, b := "6F9619FF-8B86-D011-B42D-00CF4FC964FF", "0b9f8e2a-3c1d-4e5f-8a9b-1c2d3e4f5a6b"
	ids, err := ThumbnailIDs(&a, nil, false)
	if err != nil || len(ids) != 1 || ids[0] != strings.ToLower(a) {
		t.Fatalf("single: %v %v", ids, err)
	}
	ids, err = ThumbnailIDs(nil, []string{b, a, b}, true)
	if err != nil || len(ids) != 2 || ids[0] != b {
		t.Fatalf("list: %v %v", ids, err)
	}
	bad := func(single *string, list []string, sent bool, field string) {
		t.Helper()
		_, err := ThumbnailIDs(single, list, sent)
		var ae *apierr.Error
		if !apierr.Is(err, apierr.InvalidRequest) || !errors.As(err, &ae) {
			t.Fatalf("want 400, got %v", err)
		}
		if fs, _ := ae.Details["fields"].(map[string]string); fs[field] == "" {
			t.Fatalf("want field %s in %v", field, ae.Details)
		}
	}
	bad(&a, []string{b}, true, "thumbnailIds")
	bad(nil, nil, false, "thumbnailId")
	bad(nil, []string{}, true, "thumbnailIds")
	bad(nil, make([]string, 101), true, "thumbnailIds")
	bad(nil, []string{a, "nope"}, true, "thumbnailIds[1]")
	x := "123"
	bad(&x, nil, false, "thumbnailId")
}

func TestDraftAndPatch(t *testing.T) {
	d, err := Draft{Name: "  Launch  ", Description: " d "}.Validate()
	if err != nil || d.Name != "Launch" || d.Description != "d" {
		t.Fatalf("%+v %v", d, err)
	}
	var ae *apierr.Error
	if _, err := (Draft{Name: " ", Description: strings.Repeat("x", 1001)}).Validate(); err == nil || !errors.As(err, &ae) ||
		len(ae.Details["fields"].(map[string]string)) != 2 {
		t.Fatalf("want both fields: %v", err)
	}
	if _, err := (Patch{}).Validate(); !apierr.Is(err, apierr.InvalidRequest) {
		t.Fatalf("empty patch: %v", err)
	}
	long := strings.Repeat("é", 101)
	if _, err := (Patch{Name: &long}).Validate(); !apierr.Is(err, apierr.InvalidRequest) {
		t.Fatalf("long name: %v", err)
	}
	ok := strings.Repeat("é", 100)
	if _, err := (Patch{Name: &ok}).Validate(); err != nil {
		t.Fatalf("100 characters: %v", err)
	}
}
