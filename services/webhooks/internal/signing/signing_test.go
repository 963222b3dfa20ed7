package signing

import (
	"strings"
	"testing"
	"time"
)

// The example of the Standard Webhooks specification and of its reference
// libraries' tests.
func TestSpecificationExample(t *testing.T) {
	got, err := Signature("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
		time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("signature %s, want %s", got, want)
	}
}

func TestHeadersSignWithEverySecret(t *testing.T) {
	a, _ := NewSecret()
	b, _ := NewSecret()
	if a == b || !strings.HasPrefix(a, Prefix) {
		t.Fatalf("secrets %q %q", a, b)
	}
	at := time.Unix(1_700_000_000, 0)
	h, err := Headers([]string{a, b}, "msg_1", at, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	sa, _ := Signature(a, "msg_1", at, []byte("{}"))
	sb, _ := Signature(b, "msg_1", at, []byte("{}"))
	want := []string{HeaderID, "msg_1", HeaderTimestamp, "1700000000", HeaderSignature, sa + " " + sb}
	if strings.Join(h, "|") != strings.Join(want, "|") {
		t.Fatalf("headers %q, want %q", h, want)
	}
	if sa == sb {
		t.Fatal("two secrets, one signature")
	}
	for _, bad := range []string{"", "whsec_", "whsec_!!!", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"} {
		if _, err := Signature(bad, "m", at, nil); err == nil {
			t.Errorf("secret %q accepted", bad)
		}
	}
}
