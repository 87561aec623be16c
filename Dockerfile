# sqljudge as a container image: a static binary (deploy/build-static.sh)
# on an empty base. Build from the repository root:
#
#   docker build -t sqljudge .
#   docker run --rm sqljudge eval --demo
#
# Benchmark data and results live on a mounted volume (see
# deploy/kubernetes/). The image holds the binary, CA certificates (for an
# LLM endpoint over HTTPS), an empty /tmp, and nothing else.

FROM golang:1.26-bookworm AS build
# gcc and libc6-dev (with the static libc.a) come with the golang image.
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN ./deploy/build-static.sh /out/sqljudge \
 && mkdir -p /out/tmp && chmod 1777 /out/tmp

FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/tmp /tmp
COPY --from=build /out/sqljudge /sqljudge
# An unprivileged user: the binary needs no root, and no /etc/passwd.
USER 65532:65532
ENV TMPDIR=/tmp
ENTRYPOINT ["/sqljudge"]
CMD ["--help"]
