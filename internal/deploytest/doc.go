// Package deploytest checks the deployment recipes of deploy/: every
// container command line of the Kubernetes manifests parses with the CLI's
// own flag parser, and the manifests hold what the recipe needs (an
// Indexed Job that shards and resumes, a podFailurePolicy that does not
// retry bad input, a ReadWriteMany volume, a token from a Secret). It has
// tests only.
package deploytest
