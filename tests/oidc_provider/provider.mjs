// A real OpenID provider for the tests (panva's certified `oidc-provider`), on 127.0.0.1:
//   node provider.mjs <port> '<people JSON: {client_id: email}>' | @<file of it> [<dashboard redirect URI>]
// Each client of `people` gets the client-credentials grant and stands for one person (its token's
// `sub` is the client id, and it carries that person's verified e-mail), so a test can ask a token
// without a browser. People given as @<file> are read again at each token, so a test changes a
// person's e-mail at the provider by rewriting the file (its clients are those of the first read). Access
// tokens are JWTs (RFC 9068) whose audience is the resource asked (RFC 8707 resource indicators).
// With a redirect URI, the client `dashboard` (secret `dashboard-secret`) signs people in by the
// authorization code flow, through the provider's own development login and consent pages: any
// login is accepted and is the person's verified e-mail.
// Prints "ready <issuer>" once it listens.
import { readFileSync } from "node:fs";
import Provider from "oidc-provider";

const [port, peopleText, dashboardRedirect] = process.argv.slice(2);
const readPeople = () =>
  JSON.parse(peopleText.startsWith("@") ? readFileSync(peopleText.slice(1), "utf8") : peopleText);
const people = readPeople();
const issuer = `http://127.0.0.1:${port}`;
const SCOPES = "alpha-results:read alpha-results:admin";

const agents = Object.keys(people).map((clientId) => ({
  client_id: clientId,
  client_secret: `${clientId}-secret`,
  grant_types: ["client_credentials"],
  redirect_uris: [],
  response_types: [],
  scope: SCOPES,
}));
const dashboard = dashboardRedirect
  ? [
      {
        client_id: "dashboard",
        client_secret: "dashboard-secret",
        grant_types: ["authorization_code"],
        redirect_uris: [dashboardRedirect],
        response_types: ["code"],
      },
    ]
  : [];

const provider = new Provider(issuer, {
  clients: [...agents, ...dashboard],
  findAccount: (ctx, id) => ({
    accountId: id,
    claims: () => ({ sub: id, email: id, email_verified: true }),
  }),
  claims: { openid: ["sub"], email: ["email", "email_verified"] },
  pkce: { required: () => true },
  scopes: ["openid", "email", ...SCOPES.split(" ")],
  features: {
    devInteractions: { enabled: Boolean(dashboardRedirect) },
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
  extraTokenClaims: (ctx, token) => ({ email: readPeople()[token.clientId], email_verified: true }),
});
provider.proxy = false;
provider.listen(Number(port), "127.0.0.1", () => console.log(`ready ${issuer}`));
