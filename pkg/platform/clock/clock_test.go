package clock

import (
	"testing"
	"time"
)

func TestNow(t *testing.T) {
	at := time.Date(2025, 3, 4, 5, 6, 7, 123456789, time.FixedZone("CET", 3600))
	got := Now(func() time.Time { return at })
	if want := time.Date(2025, 3, 4, 4, 6, 7, 123456000, time.UTC); !got.Equal(want) || got.Location() != time.UTC {
		t.Fatalf("Now = %v, want %v in UTC", got, want)
	}
	if now := Now(nil); now.Location() != time.UTC || now.Nanosecond()%1000 != 0 {
		t.Fatalf("Now(nil) = %v: not UTC microseconds", now)
	}
}
