package target

import (
	"context"
	"time"
)

// Published is when version was published, from the document's time
// field; zero when the document does not say (the abbreviated document
// of some registries) or the time is not RFC 3339.
func (p *Packument) Published(version string) time.Time {
	if p == nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, p.Time[version])
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// PublishTime is when name@version was published: from p when it says,
// otherwise from the package's full document (which carries the time
// field the abbreviated one may lack). Zero, without an error, when the
// registry does not say.
func (r *Registry) PublishTime(ctx context.Context, p *Packument, name, version string) (time.Time, error) {
	if t := p.Published(version); !t.IsZero() {
		return t, nil
	}
	full, err := r.fetch(ctx, name, "application/json")
	if err != nil {
		return time.Time{}, err
	}
	return full.Published(version), nil
}

// PyUploaded is when version of a project was first uploaded: the
// earliest upload time of its files (PEP 700); zero when the index gives
// none (its HTML form never does).
func PyUploaded(files []PyFile, version string) time.Time {
	var first time.Time
	for _, f := range files {
		if f.Version.String() != version || f.Uploaded.IsZero() {
			continue
		}
		if first.IsZero() || f.Uploaded.Before(first) {
			first = f.Uploaded
		}
	}
	return first
}
