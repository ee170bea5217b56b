/**
 * The bot challenge's configuration (`AALIS_CHALLENGE*`, the file's `challenge` block):
 * which provider, its keys, and where its token is verified and its script is loaded
 * from. The defaults are the providers' own documented endpoints.
 */
export const CHALLENGE_PROVIDERS = ['turnstile', 'hcaptcha'] as const;
export type ChallengeProvider = (typeof CHALLENGE_PROVIDERS)[number];

export interface ChallengeConfig {
  provider: ChallengeProvider;
  secret: string;
  siteKey: string;
  verifyUrl: string;
  scriptUrl: string;
}

/** The file's `challenge` block. */
export type ChallengeSettings = Partial<ChallengeConfig>;

/** Each provider's siteverify endpoint and the script that draws its widget (explicit rendering). */
export const CHALLENGE_ENDPOINTS: Readonly<
  Record<ChallengeProvider, { verifyUrl: string; scriptUrl: string }>
> = {
  turnstile: {
    verifyUrl: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
    scriptUrl: 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit',
  },
  hcaptcha: {
    verifyUrl: 'https://api.hcaptcha.com/siteverify',
    scriptUrl: 'https://js.hcaptcha.com/1/api.js?render=explicit',
  },
};

/**
 * The origins a page must allow (Content-Security-Policy) for the provider's widget:
 * its script, the frame it draws the check in, and what those load.
 */
export function challengeOrigins(config: Pick<ChallengeConfig, 'provider' | 'scriptUrl'>): string[] {
  const own =
    config.provider === 'turnstile'
      ? ['https://challenges.cloudflare.com']
      : ['https://hcaptcha.com', 'https://*.hcaptcha.com'];
  const script = new URL(config.scriptUrl).origin;
  return own.includes(script) ? own : [...own, script];
}
