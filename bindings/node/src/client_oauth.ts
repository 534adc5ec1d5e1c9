// OAuth for a Client over HTTP (HttpTarget.oauth): its options, the
// "oauth" connect option made from them, and the answer to the core's
// oauth/authorize question (by default the URL is printed and the system
// browser opened).

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

import type { Awaitable } from "./client_options";
import type { Implementation } from "./types";

/** What onAuthorize gets besides the authorization URL. */
export interface AuthorizeExtra {
  /** Where the authorization server sends the browser back: the client's own loopback listener, or oauth.redirectUrl. */
  redirectUrl: string;
  /** Aborts when the authorization is no longer wanted (it completed through the loopback listener, or the client closes). */
  signal: AbortSignal;
}

/**
 * How the client authorizes itself (HttpTarget.oauth). The client is
 * registered as the first of these that applies: a pre-registered
 * clientId (and clientSecret, for issuer), the clientMetadataUrl document,
 * else dynamic registration as clientName.
 */
export interface OAuthOptions {
  /** A pre-registered client's id. */
  clientId?: string;
  /** Its secret, for a confidential client. */
  clientSecret?: string;
  /** The authorization server the pre-registered client belongs to (its issuer URL). */
  issuer?: string | URL;
  /** A client ID metadata document's URL, the client's id where the server supports them. */
  clientMetadataUrl?: string | URL;
  /** The client_name of dynamic registration; default the Client's clientInfo title or name. */
  clientName?: string;
  /**
   * Where the browser comes back to after the user's consent, a URL of the
   * application's: onAuthorize must then resolve to the URL the browser came
   * back to (with its code and state). Without it the browser comes back to
   * a loopback listener of the client's own, and onAuthorize only shows the
   * URL.
   */
  redirectUrl?: string | URL;
  /**
   * "authorization_code" (default): the user authorizes in a browser.
   * "client_credentials": the client authorizes as itself (needs clientId)
   * and onAuthorize is never called.
   */
  grant?: "authorization_code" | "client_credentials";
  /**
   * A file (created with mode 0600) where the registration and tokens are
   * kept, by server URL: the next connection to the server, in this process
   * or another, sends the stored token, refreshes it when the server refuses
   * it, and asks the user again only when that fails. Without it they last
   * as long as the client.
   */
  tokenStore?: string | URL;
  /**
   * Shows the user the authorization URL (the TypeScript SDK's
   * redirectToAuthorization). By default the URL is printed on stderr and
   * the system browser is opened. Resolve to the URL the browser came back to
   * when redirectUrl is set; throw to refuse (connect() rejects).
   */
  onAuthorize?: (url: URL, extra: AuthorizeExtra) => Awaitable<void | string | URL>;
}

/** How the client answers oauth/authorize: the user's function, and whether it must give the redirect back. */
export interface Authorizer {
  onAuthorize: (url: URL, extra: AuthorizeExtra) => Awaitable<void | string | URL>;
  /** oauth.redirectUrl is set: the answer carries where the browser came back to. */
  redirect: boolean;
}

/**
 * The default onAuthorize: prints the URL on stderr and asks the desktop to
 * open it (xdg-open, or open on macOS), without waiting and ignoring a
 * desktop that has no browser.
 */
function showAuthorization(url: URL): void {
  process.stderr.write(`polymcp: the server asks for authorization; open this URL in a browser:\n  ${url.href}\n`);
  const opener = process.platform === "darwin" ? "open" : "xdg-open";
  try {
    const child = spawn(opener, [url.href], { detached: true, stdio: "ignore" });
    child.on("error", () => {});
    child.unref();
  } catch {
    // No opener: the URL on stderr has to do.
  }
}

/** The "oauth" option of polymcp_client_connect, from HttpTarget.oauth. */
export function oauthOption(oauth: OAuthOptions | true, clientInfo: Implementation): [{ [key: string]: unknown }, Authorizer | undefined] {
  const o: OAuthOptions = oauth === true ? {} : oauth;
  if (typeof o !== "object" || o === null) {
    throw new TypeError("polymcp: oauth is true or { clientId?, clientSecret?, issuer?, clientMetadataUrl?, clientName?, redirectUrl?, grant?, tokenStore?, onAuthorize? }");
  }
  const grant = o.grant ?? "authorization_code";
  if (grant !== "authorization_code" && grant !== "client_credentials") {
    throw new TypeError(`polymcp: oauth.grant is "authorization_code" or "client_credentials", not ${JSON.stringify(o.grant)}`);
  }
  const json: { [key: string]: unknown } = {};
  if (o.clientId !== undefined) {
    json.client_id = o.clientId;
    if (o.clientSecret !== undefined) json.client_secret = o.clientSecret;
    if (o.issuer !== undefined) json.issuer = String(o.issuer);
  } else if (o.clientSecret !== undefined || o.issuer !== undefined) {
    throw new TypeError("polymcp: oauth.clientSecret and oauth.issuer belong to a pre-registered client: give its clientId too");
  }
  if (o.clientMetadataUrl !== undefined) json.client_metadata_url = String(o.clientMetadataUrl);
  if (o.tokenStore !== undefined) {
    const path = o.tokenStore instanceof URL ? fileURLToPath(o.tokenStore) : o.tokenStore;
    if (typeof path !== "string" || path === "") {
      throw new TypeError("polymcp: oauth.tokenStore is the path (or file: URL) of a file");
    }
    json.token_store = path;
  }
  json.client_name = o.clientName ?? clientInfo.title ?? clientInfo.name;
  if (o.onAuthorize !== undefined && typeof o.onAuthorize !== "function") {
    throw new TypeError("polymcp: oauth.onAuthorize is a function");
  }
  if (grant === "client_credentials") {
    if (o.clientId === undefined) {
      throw new TypeError("polymcp: oauth's client_credentials grant needs a pre-registered clientId");
    }
    json.grant = grant;
    return [json, undefined];
  }
  if (o.redirectUrl !== undefined) {
    if (o.onAuthorize === undefined) {
      throw new TypeError(
        "polymcp: oauth.redirectUrl needs an onAuthorize that resolves to the URL the browser came back to",
      );
    }
    json.redirect_url = String(o.redirectUrl);
  }
  return [json, { onAuthorize: o.onAuthorize ?? showAuthorization, redirect: o.redirectUrl !== undefined }];
}

/** The answer to oauth/authorize: {} once the user was shown the URL, or where the browser came back to. */
export async function authorize(
  authorizer: Authorizer,
  params: { [key: string]: unknown },
  signal: AbortSignal,
): Promise<{ redirectUrl?: string }> {
  const { onAuthorize, redirect } = authorizer;
  const url = new URL(String(params.url));
  const back = await onAuthorize(url, { redirectUrl: String(params.redirectUrl ?? ""), signal });
  if (!redirect) {
    return {};
  }
  if (typeof back !== "string" && !(back instanceof URL)) {
    throw new Error("oauth.onAuthorize gave no redirect URL (with oauth.redirectUrl it resolves to the URL the browser came back to)");
  }
  return { redirectUrl: String(back) };
}
