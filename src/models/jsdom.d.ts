// The one part of jsdom's API this service uses (a window for DOMPurify). Its own typings
// pull in the DOM library, which changes Node's stream types for the whole project.
declare module 'jsdom' {
  export class JSDOM {
    constructor(html?: string);
    readonly window: unknown;
  }
}
