// A real OpenID provider for the tests (panva's certified `oidc-provider`), on 127.0.0.1:
//   node provider.mjs <port> '<people JSON: {client_id: email}>'
// Each client of `people` gets the client-credentials grant and stands for one person (its token
// carries that person's verified e-mail), so a test can ask a token without a browser. Access
// tokens are JWTs (RFC 9068) whose audience is the resource asked (RFC 8707 resource indicators).
// Prints "ready <issuer>" once it listens.
import Provider from "oidc-provider";

const [port, peopleText] = process.argv.slice(2);
const people = JSON.parse(peopleText);
const issuer = `http://127.0.0.1:${port}`;
const SCOPES = "alpha-results:read alpha-results:admin";

const provider = new Provider(issuer, {
  clients: Object.keys(people).map((clientId) => ({
    client_id: clientId,
    client_secret: `${clientId}-secret`,
    grant_types: ["client_credentials"],
    redirect_uris: [],
    response_types: [],
    scope: SCOPES,
  })),
  scopes: ["openid", "email", ...SCOPES.split(" ")],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resourceIndicator) => ({
        scope: SCOPES,
        audience: resourceIndicator,
        accessTokenTTL: 300,
        accessTokenFormat: "jwt",
        jwt: { sign: { alg: "RS256" } },
      }),
    },
  },
  extraTokenClaims: (ctx, token) => ({ email: people[token.clientId], email_verified: true }),
});
provider.proxy = false;
provider.listen(Number(port), "127.0.0.1", () => console.log(`ready ${issuer}`));
