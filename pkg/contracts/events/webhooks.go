package events

// EndpointDisabled is webhooks.endpoint.disabled.v1: the webhooks service
// stopped delivering to an endpoint whose deliveries kept failing. The
// organization re-enables it (PATCH enabled) once its receiver is fixed.
type EndpointDisabled struct {
	EndpointID string `json:"endpointId"`
	URL        string `json:"url"`
	// Failures is the number of consecutive failed attempts, FailingSince
	// when the first of them was made (RFC 3339).
	Failures     int    `json:"failures"`
	FailingSince string `json:"failingSince"`
	Reason       string `json:"reason"`
}
