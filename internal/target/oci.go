package target

import (
	"fmt"
	"regexp"
	"strings"
)

// KindOCI is a container image audited as shipped: its own entrypoint and
// root file system, nothing installed.
const KindOCI = "oci"

// reImage is an image reference: [HOST[:PORT]/]PATH[:TAG][@sha256:HEX];
// as in Docker, a first component is a host only with a dot or a port, or
// when it is localhost.
var reImage = regexp.MustCompile(`^(?:(?:localhost|[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)+)(?::[0-9]{1,5})?/)?` +
	`[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*` +
	`(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$`)

// parseOCI parses the part after "oci:". Name is the repository, Range the
// tag or digest (empty: latest); Path is the whole "oci:REF", what an
// audit of it is given (as for local targets).
func parseOCI(raw, ref string) (Spec, error) {
	if len(ref) > 512 || !reImage.MatchString(ref) {
		return Spec{}, fmt.Errorf("%w: %q is not an image reference (oci:IMAGE[:TAG|@DIGEST])", ErrUsage, ref)
	}
	name, version := SplitImageRef(ref)
	return Spec{Kind: KindOCI, Name: name, Range: version, Path: "oci:" + ref, Raw: raw}, nil
}

// SplitImageRef splits a reference into the repository and its tag or
// digest ("" when neither is given).
func SplitImageRef(ref string) (repo, version string) {
	if i := strings.Index(ref, "@"); i >= 0 {
		return ref[:i], ref[i+1:]
	}
	slash := strings.LastIndex(ref, "/")
	if i := strings.LastIndex(ref, ":"); i > slash {
		return ref[:i], ref[i+1:]
	}
	return ref, ""
}

// ImageRef is the image reference of an OCI target.
func (s Spec) ImageRef() string { return strings.TrimPrefix(s.Path, "oci:") }
