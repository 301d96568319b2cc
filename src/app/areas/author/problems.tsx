import { inputId } from './model';

/** The server's problems with the draft, by document path (model.ts problemPath). */
export type Problems = ReadonlyMap<string, string>;

/** The message for the input at `path`, linked from it by aria-describedby. */
export function ErrorText({ problems, path }: { problems: Problems; path: string }) {
  const message = problems.get(path);
  if (!message) return null;
  return (
    <p class="field-error" id={`${inputId(path)}-error`}>
      {message}
    </p>
  );
}
