// A test OpenID provider (oidc-provider) on 127.0.0.1 for CertSteward's single sign-on tests.
// Usage: node oidc-provider.mjs PORT REDIRECT_URI
// One confidential client ("certsteward", secret "test-client-secret", PKCE required), people
// with groups in the ID token, and the library's development login and consent pages, which a
// browser-less client completes with two form posts (login=<name>, then the consent).
import Provider from "oidc-provider";

const [port, redirectUri] = process.argv.slice(2);
if (!port || !redirectUri) {
  console.error("usage: node oidc-provider.mjs PORT REDIRECT_URI");
  process.exit(2);
}
const people = {
  alice: ["pki-admins"],
  bob: ["pki-operators"],
  carol: ["pki-admins", "pki-operators"],
  dave: [],
};

const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [
    {
      client_id: "certsteward",
      client_secret: "test-client-secret",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    },
  ],
  claims: { openid: ["sub"], profile: ["preferred_username", "groups"], email: ["email"] },
  conformIdTokenClaims: false, // the scopes' claims in the ID token itself
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true } },
  cookies: { keys: ["certsteward-test-cookie-key"] },
  async findAccount(ctx, sub) {
    if (!(sub in people)) return undefined;
    return {
      accountId: sub,
      async claims() {
        return { sub, preferred_username: sub, email: `${sub}@example.test`, groups: people[sub] };
      },
    };
  },
});
provider.on("server_error", (ctx, err) => console.error("server_error", err));
provider.listen(Number(port), "127.0.0.1", () => console.log(`listening on ${port}`));
