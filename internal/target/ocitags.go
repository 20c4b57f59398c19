package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
)

// Image tags come from the registry's HTTP API v2 (GET /v2/REPO/tags/list),
// with the anonymous bearer-token exchange registries ask for. Only data is
// read, and every answer is bounded. A reference without a registry host
// has no registry to ask here: its tags are not looked up.

// ErrNoRegistry means the reference names no registry host.
var ErrNoRegistry = errors.New("the image reference names no registry host")

// Bounds on what a registry may send.
const (
	maxTagsBody  = 4 << 20
	maxTagPages  = 20
	maxTokenBody = 64 << 10
)

// ImageTags lists the tags of the image repository repo
// ("HOST[:PORT]/PATH") through hc (nil: a client with a 30 s timeout).
// Loopback registries are spoken to over plain HTTP, others over HTTPS.
func ImageTags(ctx context.Context, hc *http.Client, repo string) ([]string, error) {
	host, path, ok := registryHost(repo)
	if !ok {
		return nil, fmt.Errorf("%s: %w", repo, ErrNoRegistry)
	}
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	scheme := "https"
	if h, _, err := net.SplitHostPort(host); err == nil && isLoopback(h) || isLoopback(host) {
		scheme = "http"
	}
	next := scheme + "://" + host + "/v2/" + path + "/tags/list?n=1000"
	var tags []string
	token := ""
	for page := 0; next != "" && page < maxTagPages; page++ {
		var err error
		var got []string
		got, next, token, err = tagsPage(ctx, hc, next, token, path)
		if err != nil {
			return tags, err
		}
		tags = append(tags, got...)
	}
	return tags, nil
}

// registryHost splits a repository into its registry host and path; the
// first component is a host only with a dot or a port, or as localhost.
func registryHost(repo string) (host, path string, ok bool) {
	first, rest, found := strings.Cut(repo, "/")
	if !found || !(strings.ContainsAny(first, ".:") || first == "localhost") {
		return "", "", false
	}
	return first, rest, true
}

func isLoopback(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// tagsPage fetches one page, answering one bearer challenge. It returns
// the tags, the next page's URL from the Link header and the token.
func tagsPage(ctx context.Context, hc *http.Client, u, token, repoPath string) ([]string, string, string, error) {
	resp, err := get(ctx, hc, u, token)
	if err != nil {
		return nil, "", token, err
	}
	if resp.StatusCode == http.StatusUnauthorized && token == "" {
		challenge := resp.Header.Get("WWW-Authenticate")
		resp.Body.Close()
		if token, err = fetchToken(ctx, hc, challenge, repoPath); err != nil {
			return nil, "", "", err
		}
		if resp, err = get(ctx, hc, u, token); err != nil {
			return nil, "", token, err
		}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", token, fmt.Errorf("listing tags: registry answered %d", resp.StatusCode)
	}
	var body struct {
		Tags []string `json:"tags"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxTagsBody)).Decode(&body); err != nil {
		return nil, "", token, fmt.Errorf("listing tags: %w", err)
	}
	var tags []string
	for _, t := range body.Tags {
		if reTag.MatchString(t) {
			tags = append(tags, t)
		}
	}
	return tags, nextLink(u, resp.Header.Get("Link")), token, nil
}

var reTag = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

func get(ctx context.Context, hc *http.Client, u, token string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("listing tags: %w", err)
	}
	return resp, nil
}

var reChallenge = regexp.MustCompile(`(realm|service|scope)="([^"]*)"`)

// fetchToken performs the anonymous token exchange of a Bearer challenge.
// The realm is the registry's to choose (token services often live on
// another host); it gets one GET with no credentials, and its answer is
// bounded.
func fetchToken(ctx context.Context, hc *http.Client, challenge, repoPath string) (string, error) {
	if !strings.HasPrefix(strings.ToLower(challenge), "bearer ") {
		return "", errors.New("listing tags: the registry wants credentials")
	}
	params := map[string]string{}
	for _, m := range reChallenge.FindAllStringSubmatch(challenge, -1) {
		params[m[1]] = m[2]
	}
	realm, err := url.Parse(params["realm"])
	if err != nil || (realm.Scheme != "https" && realm.Scheme != "http") || realm.Host == "" {
		return "", errors.New("listing tags: bad token realm")
	}
	q := realm.Query()
	if params["service"] != "" {
		q.Set("service", params["service"])
	}
	q.Set("scope", "repository:"+repoPath+":pull")
	realm.RawQuery = q.Encode()
	resp, err := get(ctx, hc, realm.String(), "")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var tok struct {
		Token       string `json:"token"`
		AccessToken string `json:"access_token"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, maxTokenBody)).Decode(&tok) != nil {
		return "", fmt.Errorf("listing tags: token endpoint answered %d", resp.StatusCode)
	}
	if tok.Token == "" {
		tok.Token = tok.AccessToken
	}
	return tok.Token, nil
}

var reLink = regexp.MustCompile(`<([^>]+)>\s*;\s*rel="?next"?`)

// nextLink resolves the Link header's next page against the current URL;
// only a page on the same host is followed.
func nextLink(cur, link string) string {
	m := reLink.FindStringSubmatch(link)
	if m == nil {
		return ""
	}
	base, err := url.Parse(cur)
	if err != nil {
		return ""
	}
	next, err := base.Parse(m[1])
	if err != nil || next.Host != base.Host {
		return ""
	}
	return next.String()
}

// NewerTags are the tags that are semantic versions newer than current
// (a leading v allowed), oldest first; prereleases only with pre.
func NewerTags(tags []string, current string, pre bool) []string {
	cur, err := semver.NewVersion(current)
	if err != nil {
		return nil
	}
	var vs []*semver.Version
	for _, t := range tags {
		v, err := semver.NewVersion(t)
		if err != nil || !v.GreaterThan(cur) || (!pre && v.Prerelease() != "") {
			continue
		}
		vs = append(vs, v)
	}
	sort.Sort(semver.Collection(vs))
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Original()
	}
	return out
}
