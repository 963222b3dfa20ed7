// Package message is the wire contract of webhook deliveries: the
// versioned JSON bodies receivers get, one per event type, as the
// `webhooks:` section of the OpenAPI document describes them. A body is
// built once, when the event is consumed, and stored: every attempt sends
// the same bytes, so a signature can be checked against any of them.
package message

import (
	"encoding/json"
	"fmt"
	"time"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/services/webhooks/internal/endpoint"
)

// Version is the version of every body this package builds. A change a
// receiver could trip on makes a new version, announced in the body.
const Version = 1

// Message is one event to deliver: its type, when it happened, the id of
// the event it came from and the body to send.
type Message struct {
	Type       string
	EventID    string
	OccurredAt time.Time
	Body       []byte
}

// body is the envelope of every delivery, after the Standard Webhooks
// convention ({type, timestamp, data}) plus the version of data's shape.
type body struct {
	Type      string    `json:"type"`
	Version   int       `json:"version"`
	Timestamp time.Time `json:"timestamp"`
	Data      any       `json:"data"`
}

// ProjectReady is the data of clips.project.ready.
type ProjectReady struct {
	ProjectID  string  `json:"projectId"`
	VideoTitle string  `json:"videoTitle"`
	Duration   float64 `json:"duration"`
	ClipCount  int     `json:"clipCount"`
}

// ProjectFailed is the data of clips.project.failed.
type ProjectFailed struct {
	ProjectID string `json:"projectId"`
	Error     string `json:"error"`
}

// RenderCompleted is the data of clips.render.completed.
type RenderCompleted struct {
	RenderID  string `json:"renderId"`
	ProjectID string `json:"projectId"`
	ClipID    string `json:"clipId"`
	OutputURL string `json:"outputUrl"`
}

// RenderFailed is the data of clips.render.failed: the credits the render
// held are refunded.
type RenderFailed struct {
	RenderID        string `json:"renderId"`
	Error           string `json:"error"`
	RefundedCredits int64  `json:"refundedCredits"`
}

// CreditsLow is the data of credits.low.
type CreditsLow struct {
	Available int64 `json:"available"`
	Threshold int64 `json:"threshold"`
}

// EndpointDisabled is the data of webhooks.endpoint.disabled.
type EndpointDisabled struct {
	EndpointID   string    `json:"endpointId"`
	URL          string    `json:"url"`
	Failures     int       `json:"failures"`
	FailingSince time.Time `json:"failingSince"`
}

// Test is the data of webhooks.test.
type Test struct {
	EndpointID string `json:"endpointId"`
	Message    string `json:"message"`
}

// New builds the message of type typ with data.
func New(typ, eventID string, at time.Time, data any) (Message, error) {
	at = at.UTC().Truncate(time.Millisecond)
	b, err := json.Marshal(body{Type: typ, Version: Version, Timestamp: at, Data: data})
	if err != nil {
		return Message{}, fmt.Errorf("message: %s: %w", typ, err)
	}
	return Message{Type: typ, EventID: eventID, OccurredAt: at, Body: b}, nil
}

// FromClips is the message of a clips event; ok is false for a subject
// that makes none. A payload that does not decode is events.ErrInvalid.
func FromClips(env events.Envelope) (m Message, ok bool, err error) {
	var typ string
	var data any
	switch env.Type {
	case events.ClipsProjectReady:
		var e events.ProjectReady
		err = env.Decode(&e)
		typ, data = endpoint.ProjectReady, ProjectReady(e)
	case events.ClipsProjectFailed:
		var e events.ProjectFailed
		err = env.Decode(&e)
		typ, data = endpoint.ProjectFailed, ProjectFailed{ProjectID: e.ProjectID, Error: e.Reason}
	case events.ClipsRenderCompleted:
		var e events.RenderCompleted
		err = env.Decode(&e)
		typ, data = endpoint.RenderCompleted, RenderCompleted{RenderID: e.RenderID, ProjectID: e.ProjectID, ClipID: e.ClipID, OutputURL: e.OutputURL}
	case events.ClipsRenderFailed:
		var e events.RenderFailed
		err = env.Decode(&e)
		typ, data = endpoint.RenderFailed, RenderFailed{RenderID: e.RenderID, Error: e.Reason, RefundedCredits: e.Credits}
	default:
		return Message{}, false, nil
	}
	if err != nil {
		return Message{}, false, events.Invalid(err)
	}
	m, err = New(typ, env.ID, env.OccurredAt, data)
	return m, err == nil, err
}
