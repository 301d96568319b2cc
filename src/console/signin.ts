import { api, ApiError } from './api';
import { h, replace, uniqueId } from './dom';
import { errorText, form, textOf } from './ui';

/**
 * Sign-in as an ordinary form (autocomplete username/current-password, so
 * password managers work). One identifier field (on a fresh install
 * the only account is the system administrator, who typed `admin` into an
 * email field): an email address signs a client user in (with the second-factor
 * step when the account has one), anything else is a system administrator's
 * user name. The API routes stay as they are: /api/client/auth/sign-in and
 * /api/admin/auth/sign-in.
 */
export function signInPage(onSignedIn: () => void): HTMLElement {
  const panel = h('div.signin-panel');

  const signInForm = () =>
    form({
      label: 'Sign in',
      fields: [
        {
          name: 'identifier',
          label: 'Email or administrator user name',
          autocomplete: 'username',
          required: true,
          hint: 'Organisation users: your email address. System administrators: your user name (after installation: admin).',
        },
        { name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', required: true },
      ],
      submit: 'Sign in',
      async onSubmit(values) {
        const identifier = textOf(values.identifier).trim();
        try {
          if (!identifier.includes('@')) {
            await api('POST', '/api/admin/auth/sign-in', { body: { username: identifier, password: values.password } });
            onSignedIn();
            return;
          }
          const result = await api('POST', '/api/client/auth/sign-in', { body: { email: identifier, password: values.password } });
          if ('twoFactorRequired' in result) panel.replaceChildren(twoFactorForm(result.challengeToken));
          else onSignedIn();
        } catch (error) {
          // the routes name the field username or email: both are this form's identifier
          if (error instanceof ApiError && error.fields.length) {
            throw new ApiError(
              error.status,
              error.code,
              error.message,
              error.fields.map((f) => ({ ...f, path: /^body\.(username|email)$/.test(f.path) ? 'identifier' : f.path })),
            );
          }
          throw error;
        }
      },
    });

  const twoFactorForm = (challengeToken: string) => {
    const step = form({
      label: 'Second factor',
      fields: [
        { name: 'code', label: 'Code from your authenticator app (or a recovery code)', autocomplete: 'one-time-code', required: true },
      ],
      submit: 'Verify',
      async onSubmit(values) {
        await api('POST', '/api/client/auth/verify-two-factor', { body: { challengeToken, code: textOf(values.code).trim() } });
        onSignedIn();
      },
    });
    queueMicrotask(() => step.querySelector('input')?.focus());
    return step;
  };

  panel.replaceChildren(signInForm());
  return h('main.signin', { id: 'main' }, h('h1', {}, 'Sign in to the wip console'), panel);
}

/**
 * The page of an invitation or password-reset link: the password rules of the
 * account's client up front (from the API, the same rules it enforces), then
 * a confirmation before going on to sign in.
 */
export function setPasswordPage(kind: 'set' | 'reset', token: string, onDone: () => void): HTMLElement {
  const title = kind === 'set' ? 'Set your password' : 'Choose a new password';
  const body = h('div', {}, h('p.loading', {}, 'Loading…'));
  const page = h('main.signin', { id: 'main' }, h('h1', {}, title), body);
  const toSignIn = () => {
    history.replaceState(null, '', '/console/');
    onDone();
  };
  const route = kind === 'set' ? '/api/client/auth/set-password/{token}' : '/api/client/auth/reset-password/{token}';
  api('GET', route, { path: { token } }).then(
    (details) => {
      const rulesId = uniqueId('rules');
      const passwordForm = form({
        label: title,
        fields: [
          {
            name: 'password',
            label: 'New password',
            type: 'password',
            autocomplete: 'new-password',
            required: true,
            hint: `At least ${details.passwordPolicy.minLength} characters; see the rules above.`,
          },
        ],
        submit: 'Save password',
        async onSubmit(values) {
          await api('POST', route, { path: { token }, body: { password: values.password } });
          replace(
            body,
            h(
              'p.notice.ok',
              { role: 'status' },
              kind === 'set' ? 'Your password is set: your account is active.' : 'Your new password is set.',
            ),
            h('p', {}, 'Sign in with ', h('strong', {}, details.email), ' and the password you just chose.'),
            h('button.primary', { type: 'button', onclick: toSignIn }, 'Continue to sign in'),
          );
          body.querySelector('button')?.focus();
        },
      });
      replace(
        body,
        h('p', {}, 'Account: ', h('strong', {}, details.email)),
        h(
          'section.rules',
          { 'aria-labelledby': rulesId },
          h('h2', { id: rulesId }, 'Your password must be'),
          h(
            'ul',
            {},
            details.passwordPolicy.rules.map((rule) => h('li', {}, rule)),
          ),
        ),
        passwordForm,
      );
    },
    (error) => {
      const expired = error instanceof ApiError && error.code === 'TOKEN_INVALID';
      replace(
        body,
        h('p.notice.error', { role: 'alert' }, expired ? 'This link has expired or was used already.' : errorText(error)),
        expired
          ? h('p', {}, kind === 'set' ? 'Ask your administrator to send the invitation again.' : 'Ask for a new password-reset link.')
          : null,
        h('button', { type: 'button', onclick: toSignIn }, 'Go to sign-in'),
      );
    },
  );
  return page;
}
