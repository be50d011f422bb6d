package agent

import (
	"crypto/tls"
	"net/http"
)

func httpClient(cfg *tls.Config) *http.Client {
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
}
