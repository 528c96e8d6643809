// Types of the undici files src/zoekt/undici.ts loads by path, from undici's own declarations.
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export = Agent;
}
declare module 'undici/lib/api/index.js' {
  import type { Dispatcher } from 'undici';
  export function request(this: Dispatcher, opts: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
}
declare module 'undici/lib/core/errors.js' {
  import { errors } from 'undici';
  export = errors;
}
