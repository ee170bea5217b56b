/** Where the widget's socket stands, as the status line and `aalis-connection` events say it. */
export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'offline';
