package target

import (
	"net/url"
	"testing"
	"time"
)

// TestPyUploaded: a version's publish time is its earliest file's PEP 700
// upload time; a version whose files say none (the HTML form) has none.
func TestPyUploaded(t *testing.T) {
	base, _ := url.Parse("https://pypi.example/simple/srv/")
	files, err := parseSimpleJSON([]byte(`{"files":[
		{"filename":"srv-1.82.7-py3-none-any.whl","url":"a","hashes":{"sha256":"00"},"upload-time":"2026-03-24T10:52:00.123456Z"},
		{"filename":"srv-1.82.7.tar.gz","url":"b","hashes":{"sha256":"01"},"upload-time":"2026-03-24T10:51:00Z"},
		{"filename":"srv-1.82.6-py3-none-any.whl","url":"c","hashes":{"sha256":"02"}}]}`), base)
	if err != nil {
		t.Fatal(err)
	}
	files = withVersions(files, "srv")
	if got, want := PyUploaded(files, "1.82.7"), time.Date(2026, 3, 24, 10, 51, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("1.82.7 uploaded %v, want %v", got, want)
	}
	if got := PyUploaded(files, "1.82.6"); !got.IsZero() {
		t.Errorf("1.82.6 uploaded %v, want none", got)
	}
}
